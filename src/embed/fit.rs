//! Fitting the static model to MiniLM's sentence vectors over a corpus, as tokenlearn does:
//! MiniLM embeds each passage of a corpus once (its *target*), and the static rows are then
//! fitted so that a passage's static vector — the sum of its tokens' rows — points where
//! MiniLM's does. Distillation alone ([`super::distill`]) sees each token on its own; fitting
//! teaches the rows how tokens read in running text.
//!
//! Deterministic: the same model, corpus and options give the same rows.

use super::kernels::{dot, normalize};
use super::minilm::MiniLm;
use crate::{Error, Result};

/// One passage of the corpus: its WordPiece ids (what the static model sums) and MiniLM's unit
/// vector for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub ids: Vec<u32>,
    pub target: Vec<f32>,
}

impl Passage {
    /// The passages as bytes (little-endian: `u32` count, `u32` width; per passage a `u32` length,
    /// its ids, then its target), so a corpus is featurized once.
    pub fn write_all(passages: &[Passage]) -> Vec<u8> {
        let width = passages.first().map_or(0, |p| p.target.len());
        let mut out = Vec::new();
        out.extend((passages.len() as u32).to_le_bytes());
        out.extend((width as u32).to_le_bytes());
        for p in passages {
            out.extend((p.ids.len() as u32).to_le_bytes());
            p.ids.iter().for_each(|id| out.extend(id.to_le_bytes()));
            p.target.iter().for_each(|x| out.extend(x.to_le_bytes()));
        }
        out
    }

    /// Reads what [`Passage::write_all`] wrote.
    pub fn read_all(bytes: &[u8]) -> Result<Vec<Passage>> {
        let bad = || Error::Invalid("not a file of featurized passages".into());
        let mut words = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
        if !bytes.len().is_multiple_of(4) {
            return Err(bad());
        }
        let mut next = || words.next().ok_or_else(bad);
        let count = u32::from_le_bytes(next()?) as usize;
        let width = u32::from_le_bytes(next()?) as usize;
        let mut out = Vec::with_capacity(count.min(bytes.len() / 4));
        for _ in 0..count {
            let len = u32::from_le_bytes(next()?) as usize;
            let ids = (0..len).map(|_| next().map(u32::from_le_bytes)).collect::<Result<Vec<_>>>()?;
            let target = (0..width).map(|_| next().map(f32::from_le_bytes)).collect::<Result<Vec<_>>>()?;
            out.push(Passage { ids, target });
        }
        if next().is_ok() {
            return Err(bad());
        }
        Ok(out)
    }
}

/// The prose paragraphs of a Markdown file, each between `min_chars` and `max_chars` characters:
/// front matter, code blocks, tables, HTML and image lines are skipped (they are not what people
/// search for by meaning), and a heading is kept in front of its section's paragraphs, as the
/// chunker puts it in front of a chunk.
pub fn prose_passages(markdown: &str, min_chars: usize, max_chars: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut heading = String::new();
    let mut paragraph = String::new();
    let mut in_code = false;
    let mut lines = markdown.lines().peekable();
    if lines.peek().is_some_and(|l| l.trim() == "---") {
        lines.next();
        for line in lines.by_ref() {
            if line.trim() == "---" {
                break;
            }
        }
    }
    let mut flush = |paragraph: &mut String, heading: &str| {
        let text = paragraph.trim();
        let chars = text.chars().count();
        if chars >= min_chars && chars <= max_chars {
            out.push(if heading.is_empty() { text.to_string() } else { format!("{heading}\n{text}") });
        }
        paragraph.clear();
    };
    for line in lines {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
            flush(&mut paragraph, &heading);
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(h) = t.strip_prefix('#').filter(|_| t.trim_start_matches('#').starts_with(' ')) {
            flush(&mut paragraph, &heading);
            heading = h.trim_start_matches('#').trim().to_string();
            continue;
        }
        let skip =
            t.is_empty() || t.starts_with('|') || t.starts_with('<') || t.starts_with("![") || line.starts_with("    ");
        if skip {
            flush(&mut paragraph, &heading);
            continue;
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(t);
    }
    flush(&mut paragraph, &heading);
    out
}

/// The sentences of a paragraph of prose with at least `min_chars` characters each: it breaks
/// after `.`, `?` or `!` followed by a space and an upper-case letter, so "e.g. this" and
/// "v1.2" stay whole.
pub fn sentences(paragraph: &str, min_chars: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = paragraph.char_indices().collect();
    for w in chars.windows(3) {
        let [(_, end), (_, space), (next_at, next)] = [w[0], w[1], w[2]];
        if matches!(end, '.' | '?' | '!') && space == ' ' && next.is_uppercase() {
            out.push(paragraph[start..next_at].trim().to_string());
            start = next_at;
        }
    }
    out.push(paragraph[start..].trim().to_string());
    out.retain(|s| s.chars().count() >= min_chars);
    out
}

/// MiniLM's vectors for `texts` (cut at the model's `max_tokens`), `batch` at a time, reporting
/// `(done, total)`.
pub fn featurize(
    model: &MiniLm,
    texts: &[String],
    batch: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<Passage> {
    let mut out = Vec::with_capacity(texts.len());
    for group in texts.chunks(batch.max(1)) {
        let encoded: Vec<Vec<u32>> = group.iter().map(|t| model.vocab().encode(t, model.max_tokens())).collect();
        let targets = model.embed_ids(&encoded);
        for (ids, target) in encoded.into_iter().zip(targets) {
            // The static model sums the pieces alone, without [CLS] and [SEP].
            let ids = ids[1..ids.len() - 1].to_vec();
            if !ids.is_empty() {
                out.push(Passage { ids, target });
            }
        }
        progress(out.len(), texts.len());
    }
    out
}

/// How to fit.
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// Passes over the training passages; the pass whose held-out score is best is kept.
    pub epochs: usize,
    /// Adam's step, as a share of the rows' root-mean-square entry.
    pub learning_rate: f32,
    /// Pull of each row towards its distilled value (L2), so rare tokens move little.
    pub l2: f32,
    /// Passages per step.
    pub batch: usize,
    /// Every `holdout`-th passage is held out to choose the pass (0: none held out).
    pub holdout: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { epochs: 12, learning_rate: 0.01, l2: 0.0, batch: 32, holdout: 20 }
    }
}

/// What fitting did: the held-out passages' mean cosine to their targets before and after each
/// pass (the training passages' when none is held out), and the pass kept.
#[derive(Debug, Clone, PartialEq)]
pub struct FitReport {
    pub before: f64,
    pub after_pass: Vec<f64>,
    pub kept_pass: usize,
}

/// Fits `rows` (one per token, in the targets' space) so that each passage's summed rows point
/// at its target. `passages`' targets must be unit vectors of the rows' width.
pub fn fit_rows(
    rows: &mut [Vec<f32>],
    passages: &[Passage],
    options: &FitOptions,
    progress: &mut dyn FnMut(usize, f64),
) -> FitReport {
    let d = rows.first().map_or(0, Vec::len);
    let (mut train, mut held): (Vec<&Passage>, Vec<&Passage>) = (Vec::new(), Vec::new());
    for (i, p) in passages.iter().enumerate() {
        if options.holdout > 0 && i % options.holdout == options.holdout - 1 {
            held.push(p);
        } else {
            train.push(p);
        }
    }
    let scored = if held.is_empty() { &train } else { &held };
    let init: Vec<Vec<f32>> = rows.to_vec();
    let entries = (rows.len() * d).max(1) as f64;
    let rms = (rows.iter().flatten().map(|x| f64::from(*x).powi(2)).sum::<f64>() / entries).sqrt() as f32;
    let lr = options.learning_rate * rms;
    let (beta1, beta2, eps) = (0.9f32, 0.999f32, 1e-8f32 * rms.max(f32::MIN_POSITIVE));
    let mut m = vec![0f32; rows.len() * d];
    let mut v = vec![0f32; rows.len() * d];
    let mut grad = vec![0f32; rows.len() * d];
    let mut touched: Vec<u32> = Vec::new();
    let mut seen = vec![false; rows.len()];
    let mut step = 0i32;
    let before = mean_cosine(rows, scored);
    let mut report = FitReport { before, after_pass: Vec::new(), kept_pass: 0 };
    let mut best = (before, rows.to_vec());
    // A fixed shuffle per pass (xorshift), so runs repeat.
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for pass in 0..options.epochs {
        for i in (1..order.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        for group in order.chunks(options.batch.max(1)) {
            for &p in group {
                let passage = train[p];
                let sum = summed_rows(rows, &passage.ids);
                let norm = dot(&sum, &sum).sqrt();
                if norm == 0.0 {
                    continue;
                }
                let cos = dot(&sum, &passage.target) / norm;
                // d(1 − cos)/d(sum) = −(target − cos · sum/|sum|) / |sum|
                let g: Vec<f32> = sum.iter().zip(&passage.target).map(|(s, t)| -(t - cos * s / norm) / norm).collect();
                for &id in &passage.ids {
                    let id = id as usize;
                    if !seen[id] {
                        seen[id] = true;
                        touched.push(id as u32);
                    }
                    grad[id * d..(id + 1) * d].iter_mut().zip(&g).for_each(|(a, b)| *a += b);
                }
            }
            step += 1;
            let (c1, c2) = (1.0 - beta1.powi(step), 1.0 - beta2.powi(step));
            for &id in &touched {
                let id = id as usize;
                seen[id] = false;
                for k in 0..d {
                    let at = id * d + k;
                    let g = grad[at] / group.len() as f32 + options.l2 * (rows[id][k] - init[id][k]);
                    grad[at] = 0.0;
                    m[at] = beta1 * m[at] + (1.0 - beta1) * g;
                    v[at] = beta2 * v[at] + (1.0 - beta2) * g * g;
                    rows[id][k] -= lr * (m[at] / c1) / ((v[at] / c2).sqrt() + eps);
                }
            }
            touched.clear();
        }
        let score = mean_cosine(rows, scored);
        report.after_pass.push(score);
        progress(pass + 1, score);
        if score > best.0 {
            best = (score, rows.to_vec());
            report.kept_pass = pass + 1;
        }
    }
    rows.iter_mut().zip(best.1).for_each(|(r, b)| *r = b);
    report
}

/// A passage's static vector before normalising: the sum of its tokens' rows.
fn summed_rows(rows: &[Vec<f32>], ids: &[u32]) -> Vec<f32> {
    let mut sum = vec![0f32; rows.first().map_or(0, Vec::len)];
    for &id in ids {
        sum.iter_mut().zip(&rows[id as usize]).for_each(|(s, r)| *s += r);
    }
    sum
}

/// The passages' mean cosine between their summed rows and their targets.
fn mean_cosine(rows: &[Vec<f32>], passages: &[&Passage]) -> f64 {
    let total: f64 = passages
        .iter()
        .map(|p| {
            let mut sum = summed_rows(rows, &p.ids);
            normalize(&mut sum);
            f64::from(dot(&sum, &p.target))
        })
        .sum();
    total / passages.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_passages_keep_paragraphs_under_their_heading_and_skip_what_is_not_prose() {
        let md = "---\ntitle: x\n---\n# Sync\nKeep your notes the same on every device you own.\nSecond line of it.\n\n```\ncode that is long enough to count as a passage\n```\n| a | table row that is long enough |\n\nshort\n\n## Restore\nGet back an older version of a note from its history.\n";
        let passages = prose_passages(md, 20, 200);
        assert_eq!(
            passages,
            vec![
                "Sync\nKeep your notes the same on every device you own. Second line of it.".to_string(),
                "Restore\nGet back an older version of a note from its history.".to_string(),
            ]
        );
        assert!(prose_passages(md, 20, 40).is_empty(), "paragraphs over the maximum are left out");
    }

    #[test]
    fn sentences_break_after_a_full_stop_before_a_capital_only() {
        let text = "Sync keeps notes the same, e.g. on a phone. Version 1.2 added it! Short. What does it cost? Nothing at all here.";
        assert_eq!(
            sentences(text, 12),
            vec![
                "Sync keeps notes the same, e.g. on a phone.",
                "Version 1.2 added it!",
                "What does it cost?",
                "Nothing at all here."
            ]
        );
    }

    #[test]
    fn featurized_passages_round_trip_through_bytes_and_damage_is_refused() {
        let passages = vec![
            Passage { ids: vec![4, 5, 6], target: vec![0.6, 0.8] },
            Passage { ids: vec![7], target: vec![1.0, 0.0] },
        ];
        let bytes = Passage::write_all(&passages);
        assert_eq!(Passage::read_all(&bytes).unwrap(), passages);
        assert!(Passage::read_all(&bytes[..bytes.len() - 4]).is_err());
        assert!(Passage::read_all(&[bytes.as_slice(), &[0, 0, 0, 0]].concat()).is_err());
        assert!(Passage::read_all(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn fitting_moves_the_rows_so_passages_point_at_their_targets() {
        // The "true" rows make the targets; fitting starts from rows that are partly wrong.
        let truth: Vec<Vec<f32>> =
            (0..8).map(|t| (0..4).map(|k| (((t * 7 + k * 3) % 11) as f32 - 5.0) / 5.0).collect()).collect();
        let mut rows: Vec<Vec<f32>> = truth
            .iter()
            .enumerate()
            .map(|(t, r)| r.iter().map(|x| if t % 2 == 0 { -x } else { *x }).collect())
            .collect();
        let mut passages = Vec::new();
        for a in 0..8u32 {
            for b in a + 1..8 {
                let mut target: Vec<f32> =
                    truth[a as usize].iter().zip(&truth[b as usize]).map(|(x, y)| x + y).collect();
                normalize(&mut target);
                passages.push(Passage { ids: vec![a, b], target });
            }
        }
        let options = FitOptions { epochs: 60, learning_rate: 0.05, l2: 0.0, batch: 4, holdout: 5 };
        let mut passes = Vec::new();
        let report = fit_rows(&mut rows, &passages, &options, &mut |pass, score| passes.push((pass, score)));
        assert_eq!(passes.len(), 60);
        let kept = report.after_pass[report.kept_pass - 1];
        assert!(report.before < 0.5 && kept > 0.95, "held-out cosine {} -> {kept}", report.before);
        assert!(report.after_pass.iter().all(|s| *s <= kept), "the best pass is the one kept");
        let held: Vec<&Passage> = passages.iter().skip(4).step_by(5).collect();
        assert!((mean_cosine(&rows, &held) - kept).abs() < 1e-9, "the rows left are the kept pass's");
    }
}
