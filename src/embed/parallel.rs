//! [`ParallelEmbedder`]: one embedder made of several copies of the same model (in the plugin,
//! MiniLM in several Web Workers), each batch split between them and embedded at once.

use std::rc::Rc;

use async_trait::async_trait;
use futures::future::try_join_all;

use super::Embedder;
use crate::{Error, Result};

/// Copies of one model working side by side. Its id, dimensions and vectors are the copies'
/// own (so vectors made by one copy, by all of them, or by the model in-thread compare and
/// are kept); a batch is `copies × ` one copy's batch, split into contiguous shares of about
/// equal text length (a transformer's work grows with it), in order.
pub struct ParallelEmbedder {
    copies: Vec<Rc<dyn Embedder>>,
}

impl ParallelEmbedder {
    /// Fails when `copies` is empty or they are not the same model (their ids differ).
    pub fn new(copies: Vec<Rc<dyn Embedder>>) -> Result<Self> {
        let first = copies.first().ok_or_else(|| Error::Invalid("no embedder to run in parallel".into()))?;
        if let Some(other) = copies.iter().find(|c| c.id() != first.id() || c.dimensions() != first.dimensions()) {
            return Err(Error::Invalid(format!(
                "embedders run in parallel must be one model: {} and {}",
                first.id(),
                other.id()
            )));
        }
        Ok(ParallelEmbedder { copies })
    }

    /// How many copies embed at once.
    pub fn width(&self) -> usize {
        self.copies.len()
    }
}

/// Cuts `texts` into at most `parts` contiguous, non-empty shares of about equal total length.
fn shares(texts: &[&str], parts: usize) -> Vec<std::ops::Range<usize>> {
    let cost = |t: &&str| t.len().max(1);
    let total: usize = texts.iter().map(cost).sum();
    let mut out = Vec::with_capacity(parts);
    let (mut start, mut sum) = (0, 0);
    for (i, text) in texts.iter().enumerate() {
        sum += cost(text);
        let left_parts = parts - out.len() - 1;
        let left_texts = texts.len() - i - 1;
        // Close a share once it holds its part of the total, or when each later part needs
        // one of the texts left.
        if left_parts > 0 && (sum * parts >= total * (out.len() + 1) || left_texts < left_parts + 1) {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < texts.len() {
        out.push(start..texts.len());
    }
    out
}

#[async_trait(?Send)]
impl Embedder for ParallelEmbedder {
    fn id(&self) -> &str {
        self.copies[0].id()
    }

    fn dimensions(&self) -> usize {
        self.copies[0].dimensions()
    }

    fn batch_size(&self) -> usize {
        self.copies[0].batch_size() * self.copies.len()
    }

    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let work = shares(texts, self.copies.len())
            .into_iter()
            .zip(&self.copies)
            .map(|(range, copy)| async move { copy.embed(&texts[range]).await });
        let vectors: Vec<Vec<f32>> = try_join_all(work).await?.into_iter().flatten().collect();
        if vectors.len() != texts.len() {
            return Err(Error::Invalid(format!("{} texts embedded as {} vectors", texts.len(), vectors.len())));
        }
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn shares_cover_every_text_in_order_and_balance_length() {
        let texts = ["aaaa", "bb", "cc", "aaaa", "b", "ccc", "d", "aaaa"];
        for parts in 1..=10 {
            let cut = shares(&texts, parts);
            assert_eq!(cut.len(), parts.min(texts.len()), "{parts} parts: {cut:?}");
            assert_eq!(cut.first().unwrap().start, 0);
            assert_eq!(cut.last().unwrap().end, texts.len());
            assert!(cut.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end), "{cut:?}");
        }
        let two = shares(&texts, 2);
        let len = |r: &std::ops::Range<usize>| texts[r.clone()].iter().map(|t| t.len()).sum::<usize>();
        assert_eq!((len(&two[0]), len(&two[1])), (12, 9), "{two:?}");
        assert!(shares(&[], 4).is_empty());
        assert_eq!(shares(&["only"], 4), vec![0..1]);
    }
}
