//! Making a [`StaticEmbedder`] from MiniLM, offline, as model2vec does: embed every vocabulary
//! token on its own (`[CLS] token [SEP]`, mean pooled), reduce the vectors with PCA (which also
//! removes the direction every token shares), weight each token by how rare it is (SIF weights
//! with a Zipf estimate of its frequency from its rank in the vocabulary), and quantise to int8.
//!
//! Deterministic: the same model files give byte-identical output.

use super::fit::{fit_rows, FitOptions, FitReport, Passage};
use super::kernels::normalize;
use super::minilm::MiniLm;
use super::static_model::{StaticEmbedder, StaticHeader};
use crate::Result;

/// How to distill.
#[derive(Debug, Clone)]
pub struct DistillOptions {
    /// Dimensions kept by PCA.
    pub dimensions: usize,
    /// The SIF coefficient `a` in `a / (a + p(token))`.
    pub sif: f64,
    /// Tokens embedded per forward pass.
    pub batch: usize,
    /// The id given to the result.
    pub id: String,
    /// How the rows are fitted when a corpus is given.
    pub fit: FitOptions,
}

impl Default for DistillOptions {
    fn default() -> Self {
        DistillOptions {
            dimensions: 256,
            sif: 1e-4,
            batch: 512,
            id: "static-minilm-l6-v2-256@1".into(),
            fit: FitOptions::default(),
        }
    }
}

/// How far distilling has come.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DistillProgress {
    /// Vocabulary tokens embedded by MiniLM so far.
    Tokens { done: usize, total: usize },
    /// A pass of fitting ended with this held-out cosine.
    Pass { pass: usize, score: f64 },
}

/// Distills `model` into a static embedder. With a `corpus` (MiniLM's vectors of passages, see
/// `fit.rs`), the rows live in the principal components of the passages' vectors and are
/// fitted to them; without one, in the tokens' own principal components, as model2vec makes them.
pub fn distill(
    model: &MiniLm,
    options: &DistillOptions,
    corpus: &[Passage],
    progress: &mut dyn FnMut(DistillProgress),
) -> Result<(StaticEmbedder, Option<FitReport>)> {
    let vocab = model.vocab().clone();
    let n = vocab.len();
    let mut raw: Vec<Vec<f32>> = Vec::with_capacity(n);
    let ids: Vec<u32> = (0..n as u32).collect();
    for batch in ids.chunks(options.batch.max(1)) {
        let seqs: Vec<Vec<u32>> = batch.iter().map(|&t| vec![vocab.cls, t, vocab.sep]).collect();
        raw.extend(model.embed_ids_unnormalized(&seqs));
        progress(DistillProgress::Tokens { done: raw.len(), total: n });
    }
    let d_in = raw.first().map_or(0, Vec::len);
    let d_out = options.dimensions.min(d_in);
    if corpus.iter().any(|p| p.target.len() != d_in || p.ids.iter().any(|&id| id as usize >= n)) {
        return Err(crate::Error::Invalid("the corpus was not featurized with this model".into()));
    }
    let targets: Vec<Vec<f32>> = corpus.iter().map(|p| p.target.clone()).collect();
    let (components, target_mean) =
        if corpus.is_empty() { (pca(&raw, d_out), None) } else { (pca(&targets, d_out), Some(column_mean(&targets))) };
    let project = |v: &[f32], mean: &[f32]| -> Vec<f32> {
        components.iter().map(|c| v.iter().zip(mean).zip(c).map(|((x, m), c)| (x - m) * c).sum::<f32>()).collect()
    };
    let mean = column_mean(&raw);
    // Rank 1 is the first vocabulary entry; Zipf: p(r) ∝ 1/r.
    let harmonic: f64 = (1..=n).map(|r| 1.0 / r as f64).sum();
    let mut rows: Vec<Vec<f32>> = raw
        .iter()
        .enumerate()
        .map(|(t, v)| {
            let p = 1.0 / ((t + 1) as f64 * harmonic);
            let weight = (options.sif / (options.sif + p)) as f32;
            project(v, &mean).into_iter().map(|x| weight * x).collect()
        })
        .collect();
    let mut source = format!(
        "distilled from all-MiniLM-L6-v2: per-token mean-pooled outputs, PCA to {d_out}, SIF weights (a = {}) from Zipf ranks",
        options.sif
    );
    let report = match target_mean {
        None => None,
        Some(target_mean) => {
            let projected: Vec<Passage> = corpus
                .iter()
                .map(|p| {
                    let mut target = project(&p.target, &target_mean);
                    normalize(&mut target);
                    Passage { ids: p.ids.clone(), target }
                })
                .collect();
            let report = fit_rows(&mut rows, &projected, &options.fit, &mut |pass, score| {
                progress(DistillProgress::Pass { pass, score })
            });
            source = format!(
                "distilled from all-MiniLM-L6-v2: per-token mean-pooled outputs, SIF weights (a = {}) from Zipf ranks, in the top {d_out} principal components of MiniLM's vectors of {} passages, fitted to those vectors ({} passes kept; held-out cosine {:.3} -> {:.3})",
                options.sif,
                corpus.len(),
                report.kept_pass,
                report.before,
                report.after_pass.get(report.kept_pass.wrapping_sub(1)).copied().unwrap_or(report.before)
            );
            Some(report)
        }
    };
    let header = StaticHeader { id: options.id.clone(), dimensions: d_out, tokens: n, source: source + ", int8" };
    Ok((StaticEmbedder::from_rows(header, vocab, &rows)?, report))
}

fn column_mean(rows: &[Vec<f32>]) -> Vec<f32> {
    let d = rows.first().map_or(0, Vec::len);
    let mut mean = vec![0f64; d];
    for r in rows {
        for (m, x) in mean.iter_mut().zip(r) {
            *m += f64::from(*x);
        }
    }
    mean.iter().map(|m| (m / rows.len().max(1) as f64) as f32).collect()
}

/// The top `k` principal components of `rows` (unit vectors, largest variance first).
fn pca(rows: &[Vec<f32>], k: usize) -> Vec<Vec<f32>> {
    let d = rows.first().map_or(0, Vec::len);
    let mean = column_mean(rows);
    let mut cov = vec![0f64; d * d];
    let mut centered = vec![0f64; d];
    for r in rows {
        for i in 0..d {
            centered[i] = f64::from(r[i] - mean[i]);
        }
        for i in 0..d {
            let ci = centered[i];
            let row = &mut cov[i * d..(i + 1) * d];
            for j in i..d {
                row[j] += ci * centered[j];
            }
        }
    }
    for i in 0..d {
        for j in 0..i {
            cov[i * d + j] = cov[j * d + i];
        }
    }
    let (values, vectors) = jacobi_eigen(cov, d);
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    order
        .into_iter()
        .take(k)
        .map(|c| {
            // A fixed sign (largest entry positive) keeps the output deterministic.
            let col: Vec<f64> = (0..d).map(|i| vectors[i * d + c]).collect();
            let big = col.iter().copied().fold(0f64, |m, x| if x.abs() > m.abs() { x } else { m });
            let sign = if big < 0.0 { -1.0 } else { 1.0 };
            col.iter().map(|x| (x * sign) as f32).collect()
        })
        .collect()
}

/// Eigenvalues and eigenvectors (columns) of a symmetric `d × d` matrix, by cyclic Jacobi.
fn jacobi_eigen(mut a: Vec<f64>, d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0f64; d * d];
    for i in 0..d {
        v[i * d + i] = 1.0;
    }
    for _sweep in 0..50 {
        let off: f64 = (0..d)
            .flat_map(|i| (0..d).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * d + j].powi(2))
            .sum();
        let total: f64 = a.iter().map(|x| x * x).sum();
        if off <= total * 1e-22 {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                let apq = a[p * d + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q * d + q] - a[p * d + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..d {
                    let (akp, akq) = (a[k * d + p], a[k * d + q]);
                    a[k * d + p] = c * akp - s * akq;
                    a[k * d + q] = s * akp + c * akq;
                }
                for k in 0..d {
                    let (apk, aqk) = (a[p * d + k], a[q * d + k]);
                    a[p * d + k] = c * apk - s * aqk;
                    a[q * d + k] = s * apk + c * aqk;
                }
                for k in 0..d {
                    let (vkp, vkq) = (v[k * d + p], v[k * d + q]);
                    v[k * d + p] = c * vkp - s * vkq;
                    v[k * d + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..d).map(|i| a[i * d + i]).collect(), v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_finds_the_eigenpairs_of_a_small_matrix() {
        // [[2,1],[1,2]]: eigenvalues 3 and 1, eigenvectors (1,1)/√2 and (1,-1)/√2.
        let (values, vectors) = jacobi_eigen(vec![2.0, 1.0, 1.0, 2.0], 2);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        assert!((sorted[0] - 1.0).abs() < 1e-12 && (sorted[1] - 3.0).abs() < 1e-12);
        let big = if values[0] > values[1] { 0 } else { 1 };
        assert!((vectors[big].abs() - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
    }

    #[test]
    fn pca_keeps_the_direction_of_most_variance() {
        let rows: Vec<Vec<f32>> = (0..100)
            .map(|i| {
                let t = i as f32 / 10.0;
                vec![t, 2.0 * t + 0.01 * (i % 3) as f32, 0.5]
            })
            .collect();
        let c = &pca(&rows, 1)[0];
        let norm = (1.0f32 + 4.0).sqrt();
        assert!((c[0] - 1.0 / norm).abs() < 1e-3 && (c[1] - 2.0 / norm).abs() < 1e-3 && c[2].abs() < 1e-3);
    }
}
