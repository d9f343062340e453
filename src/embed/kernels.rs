//! The numeric loops the embedders and the vector index run: dot products, `X·Wᵀ`, layer norm,
//! GELU, softmax, L2 normalisation, and int8 quantisation.
//!
//! Written so the compiler vectorises them without `unsafe`: fixed-width accumulator arrays over
//! `chunks_exact`, so each lane is an independent sum (floating-point sums are not reordered
//! otherwise). With `-C target-feature=+simd128` they become wasm SIMD; natively SSE/AVX.

/// Lanes per accumulator block: two 128-bit vectors of f32.
const LANES: usize = 8;

/// `a · b` over the shorter length.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    let mut sum = acc.iter().sum::<f32>();
    for (x, y) in ra.iter().zip(rb) {
        sum += x * y;
    }
    sum
}

/// Four dot products with one shared `w`: `w` is loaded once for four rows.
#[inline]
fn dot4(x: [&[f32]; 4], w: &[f32]) -> [f32; 4] {
    let n = w.len();
    let mut acc = [[0f32; 4]; 4];
    let blocks = n / 4;
    for blk in 0..blocks {
        let o = blk * 4;
        let wv = &w[o..o + 4];
        for r in 0..4 {
            let xv = &x[r][o..o + 4];
            for i in 0..4 {
                acc[r][i] += xv[i] * wv[i];
            }
        }
    }
    let mut out = [0f32; 4];
    for r in 0..4 {
        out[r] = acc[r].iter().sum::<f32>();
        for i in blocks * 4..n {
            out[r] += x[r][i] * w[i];
        }
    }
    out
}

/// `Y = X·Wᵀ + bias` for `X` of `rows × k` and `W` of `m × k` (PyTorch's `Linear` layout), all
/// row-major. `y` is overwritten with `rows × m`.
pub fn linear(x: &[f32], rows: usize, w: &[f32], bias: &[f32], y: &mut Vec<f32>) {
    let m = bias.len();
    let k = w.len().checked_div(m).unwrap_or(0);
    y.clear();
    y.resize(rows * m, 0.0);
    let mut r = 0;
    while r + 4 <= rows {
        let xs = [&x[r * k..][..k], &x[(r + 1) * k..][..k], &x[(r + 2) * k..][..k], &x[(r + 3) * k..][..k]];
        for (o, wr) in w.chunks_exact(k).enumerate() {
            let d = dot4(xs, wr);
            for i in 0..4 {
                y[(r + i) * m + o] = d[i] + bias[o];
            }
        }
        r += 4;
    }
    for r in r..rows {
        let xr = &x[r * k..][..k];
        for (o, wr) in w.chunks_exact(k).enumerate() {
            y[r * m + o] = dot(xr, wr) + bias[o];
        }
    }
}

/// Layer normalisation of each `width`-wide row in place.
pub fn layer_norm(x: &mut [f32], width: usize, gamma: &[f32], beta: &[f32], eps: f32) {
    for row in x.chunks_exact_mut(width) {
        let mean = row.iter().sum::<f32>() / width as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / width as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

/// The exact GELU, `x·Φ(x)`, in place.
pub fn gelu(x: &mut [f32]) {
    for v in x {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// The error function (Abramowitz–Stegun 7.1.26 refined: max error 1.5e-7).
fn erf(x: f32) -> f32 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs() as f64;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592)
            * t
            * (-x * x).exp();
    sign * y as f32
}

/// Softmax of a row in place.
pub fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    let inv = 1.0 / sum;
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = dot(v, v).sqrt();
    if norm > 0.0 {
        let inv = 1.0 / norm;
        v.iter_mut().for_each(|x| *x *= inv);
    }
}

/// The int8 rows stored from `at` to the end of a file's `bytes`, in the same allocation: the
/// part before them is moved out of the way and the bytes are reinterpreted by an in-place
/// collect, so loading holds the file once, not the file and a copy of its rows.
pub fn tail_as_i8(mut bytes: Vec<u8>, at: usize) -> Vec<i8> {
    bytes.drain(..at);
    bytes.into_iter().map(|b| b as i8).collect()
}

/// Symmetric int8 quantisation of `v`: `(codes, scale)` with `v ≈ codes · scale`.
pub fn quantize_i8(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    let inv = 1.0 / scale;
    (v.iter().map(|x| (x * inv).round().clamp(-127.0, 127.0) as i8).collect(), scale)
}

/// `a · b` of two int8 vectors, summed exactly in i32.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let mut sum = acc.iter().sum::<i32>();
    for (x, y) in ra.iter().zip(rb) {
        sum += i32::from(*x) * i32::from(*y);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_matches_the_naive_product() {
        let (rows, k, m) = (7, 13, 5);
        let x: Vec<f32> = (0..rows * k).map(|i| (i as f32 * 0.37).sin()).collect();
        let w: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.11).cos()).collect();
        let b: Vec<f32> = (0..m).map(|i| i as f32).collect();
        let mut y = Vec::new();
        linear(&x, rows, &w, &b, &mut y);
        for r in 0..rows {
            for o in 0..m {
                let want: f32 = (0..k).map(|i| x[r * k + i] * w[o * k + i]).sum::<f32>() + b[o];
                assert!((y[r * m + o] - want).abs() < 1e-4, "{r},{o}");
            }
        }
    }

    #[test]
    fn erf_gelu_softmax_and_quantisation() {
        assert!((erf(0.5) - 0.520_499_9).abs() < 1e-6);
        assert!((erf(-2.0) + 0.995_322_3).abs() < 1e-6);
        let mut g = [1.0f32];
        gelu(&mut g);
        assert!((g[0] - 0.841_344_7).abs() < 1e-5);
        let mut s = [1.0, 2.0, 3.0];
        softmax(&mut s);
        assert!((s.iter().sum::<f32>() - 1.0).abs() < 1e-6 && s[2] > s[1]);
        let v = [0.5, -1.0, 0.25];
        let (q, scale) = quantize_i8(&v);
        assert_eq!(q, vec![64, -127, 32]);
        assert!((q[1] as f32 * scale + 1.0).abs() < 1e-6);
        assert_eq!(dot_i8(&q, &q), 64 * 64 + 127 * 127 + 32 * 32);
    }
}
