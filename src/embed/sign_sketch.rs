//! [`SignSketch`]: a first pass over many vectors. Each row is kept as one bit per dimension —
//! whether it lies above or below the rows' mean there — and scored against a query by a table
//! lookup per eight dimensions, about a tenth of the work of an exact int8 dot product. The
//! score estimates the row's dot product with the query well enough to pick the few thousand
//! rows worth scoring exactly (the idea of binary quantisation with rescoring, with the query
//! kept in floats: an asymmetric distance, which ranks better than comparing bits with bits).

/// How many rows at most place the sketch's mean and spread.
const SAMPLED: usize = 4096;

/// The sketch of a vector index's rows, in row order.
#[derive(Debug, Clone, Default)]
pub(crate) struct SignSketch {
    dims: usize,
    /// The rows' mean, per dimension: the bits say on which side of it a row lies.
    center: Vec<f32>,
    /// The mean distance from the mean, per dimension: how much a bit there is worth.
    spread: Vec<f32>,
    /// `dims.div_ceil(8)` bytes per row, dimension `d` in bit `d % 8` of byte `d / 8`.
    bits: Vec<u8>,
}

impl SignSketch {
    /// The sketch of `rows` rows of `dims` values, `row(r, buf)` writing row `r` into `buf`.
    /// The mean and the spread are taken over at most [`SAMPLED`] rows spread evenly: enough to
    /// place each dimension's middle, and a large index is sketched in one pass over its rows.
    pub(crate) fn build(dims: usize, rows: usize, row: impl Fn(usize, &mut Vec<f32>)) -> SignSketch {
        let stride = rows.div_ceil(SAMPLED).max(1);
        let sample = (0..rows).step_by(stride);
        let n = sample.len().max(1) as f64;
        let mut buf = Vec::with_capacity(dims);
        let mut sum = vec![0f64; dims];
        for r in sample.clone() {
            row(r, &mut buf);
            sum.iter_mut().zip(&buf).for_each(|(s, &x)| *s += f64::from(x));
        }
        let center: Vec<f32> = sum.iter().map(|s| (s / n) as f32).collect();
        let mut deviation = vec![0f64; dims];
        for r in sample {
            row(r, &mut buf);
            deviation.iter_mut().zip(buf.iter().zip(&center)).for_each(|(s, (&x, &c))| *s += f64::from((x - c).abs()));
        }
        let spread = deviation.iter().map(|s| (s / n) as f32).collect();
        let mut sketch = SignSketch { dims, center, spread, bits: Vec::with_capacity(rows * dims.div_ceil(8)) };
        for r in 0..rows {
            row(r, &mut buf);
            sketch.push(&buf);
        }
        sketch
    }

    /// Appends a row, placed against the mean and spread the sketch was built with.
    pub(crate) fn push(&mut self, row: &[f32]) {
        let start = self.bits.len();
        self.bits.resize(start + self.dims.div_ceil(8), 0);
        for (d, (&x, &c)) in row.iter().zip(&self.center).enumerate() {
            if x > c {
                self.bits[start + d / 8] |= 1 << (d % 8);
            }
        }
    }

    /// The number of rows sketched.
    pub(crate) fn len(&self) -> usize {
        self.bits.len() / self.dims.div_ceil(8).max(1)
    }

    /// Each row's estimated dot product with `query` (scaled, and less a constant the same for
    /// every row, so the estimates rank rows and nothing else), in row order, into `out`.
    pub(crate) fn scores(&self, query: &[f32], out: &mut Vec<i32>) {
        let width = self.dims.div_ceil(8);
        // For each byte of a row, the estimate of all 256 values it can take: a set bit adds
        // the query's value times the spread there, a clear one takes it away. In integers, so
        // a row's sum of lookups can be added in any order (floats keep one long chain).
        let weights: Vec<f32> = (0..width * 8)
            .map(|d| query.get(d).copied().unwrap_or(0.0) * self.spread.get(d).copied().unwrap_or(0.0))
            .collect();
        let largest = weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        // A row's sum stays below 2^30 in magnitude: 8 weights per byte, `width` bytes.
        let unit = if largest > 0.0 { (1 << 30) as f32 / (largest * (width * 8) as f32) } else { 0.0 };
        let mut table = vec![0i32; width * 256];
        for (byte, slice) in table.chunks_exact_mut(256).enumerate() {
            let w = &weights[byte * 8..byte * 8 + 8];
            for (value, entry) in slice.iter_mut().enumerate() {
                let sum: f32 = w.iter().enumerate().map(|(k, w)| if value & (1 << k) != 0 { *w } else { -*w }).sum();
                *entry = (sum * unit).round() as i32;
            }
        }
        out.clear();
        out.extend(self.bits.chunks_exact(width).map(|row| {
            row.iter().zip(table.chunks_exact(256)).map(|(&b, t)| t[b as usize]).fold(0i32, i32::wrapping_add)
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(row: &[f32], buf: &mut Vec<f32>) {
        buf.clear();
        buf.extend_from_slice(row);
    }

    /// Deterministic pseudo-random unit vectors with a shared offset (as real embeddings have).
    fn rows(n: usize, dims: usize) -> Vec<Vec<f32>> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        (0..n)
            .map(|_| {
                let mut v: Vec<f32> = (0..dims).map(|d| next() + if d % 3 == 0 { 0.4 } else { 0.0 }).collect();
                crate::embed::normalize(&mut v);
                v
            })
            .collect()
    }

    #[test]
    fn the_estimate_ranks_rows_as_their_dot_products_do() {
        let (dims, data) = (64, rows(2000, 64));
        let sketch = SignSketch::build(dims, data.len(), |r, buf| copy(&data[r], buf));
        assert_eq!(sketch.len(), 2000);
        let query = &data[7];
        let mut estimate = Vec::new();
        sketch.scores(query, &mut estimate);
        let exact: Vec<i32> = data.iter().map(|r| (crate::embed::dot(query, r) * 1e6) as i32).collect();
        // The 20 rows closest to the query all lie among the 200 the estimate ranks first.
        let top = |scores: &[i32], n: usize| {
            let mut order: Vec<usize> = (0..scores.len()).collect();
            order.sort_by_key(|&r| std::cmp::Reverse(scores[r]));
            order.truncate(n);
            order
        };
        let first = top(&estimate, 200);
        assert_eq!(top(&estimate, 1), vec![7], "a row is its own nearest");
        assert!(top(&exact, 20).iter().all(|r| first.contains(r)));
    }

    #[test]
    fn pushed_rows_are_sketched_as_built_ones() {
        let (dims, data) = (20, rows(50, 20));
        let built = SignSketch::build(dims, data.len(), |r, buf| copy(&data[r], buf));
        let mut grown = SignSketch::build(dims, 30, |r, buf| copy(&data[r], buf));
        grown.center = built.center.clone();
        grown.spread = built.spread.clone();
        grown.bits.clear();
        data.iter().for_each(|r| grown.push(r));
        assert_eq!(grown.bits, built.bits);
        assert_eq!(grown.len(), 50);
    }
}
