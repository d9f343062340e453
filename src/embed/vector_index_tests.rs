use super::*;
use crate::embed::normalize;

fn unit(v: &[f32]) -> Vec<f32> {
    let mut v = v.to_vec();
    normalize(&mut v);
    v
}

fn sample(precision: Precision) -> VectorIndex {
    let mut index = VectorIndex::new("test", 3, precision);
    index
        .insert("a.md", "h1", 1, vec![(None, unit(&[1.0, 0.0, 0.0])), (Some("A › x".into()), unit(&[0.0, 1.0, 0.0]))])
        .unwrap();
    index.insert("b.md", "h2", 2, vec![(None, unit(&[0.7, 0.7, 0.0]))]).unwrap();
    index.insert("c.md", "h3", 3, vec![(None, unit(&[0.0, 0.0, 1.0]))]).unwrap();
    index
}

#[test]
fn each_note_scores_by_its_best_chunk() {
    for precision in [Precision::F32, Precision::Int8] {
        let index = sample(precision);
        let hits = index.search(&unit(&[0.0, 1.0, 0.1]), 2, &|_| true);
        assert_eq!(hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(), vec!["a.md", "b.md"], "{precision:?}");
        assert_eq!(hits[0].heading.as_deref(), Some("A › x"));
        assert!((hits[0].score - 0.995).abs() < 0.01, "{}", hits[0].score);
        let filtered = index.search(&unit(&[0.0, 1.0, 0.1]), 2, &|p| p != "a.md");
        assert_eq!(filtered[0].path, "b.md");
    }
}

#[test]
fn replacing_and_removing_notes_leaves_only_their_new_vectors() {
    let mut index = sample(Precision::F32);
    assert!(index.is_current("a.md", "h1") && !index.is_current("a.md", "other"));
    index.insert("a.md", "h9", 4, vec![(None, unit(&[0.0, 0.0, 1.0]))]).unwrap();
    assert_eq!(index.vector_count(), 3);
    let hits = index.search(&unit(&[0.0, 1.0, 0.0]), 3, &|_| true);
    assert_eq!(hits[0].path, "b.md", "a.md's old chunk is gone");
    assert!(index.remove("c.md") && !index.remove("c.md"));
    assert_eq!(index.note_count(), 2);
    assert!(index.insert("d.md", "h", 0, vec![(None, vec![1.0, 0.0])]).is_err(), "wrong width");
}

#[test]
fn saved_bytes_load_back_and_damage_is_detected() {
    for precision in [Precision::F32, Precision::Int8] {
        let mut index = sample(precision);
        index.remove("b.md");
        let bytes = index.to_bytes();
        let back = VectorIndex::from_bytes(&bytes).unwrap();
        assert_eq!(back.note_count(), 2);
        assert_eq!(back.embedder(), "test");
        let q = unit(&[0.1, 1.0, 0.0]);
        assert_eq!(back.search(&q, 3, &|_| true), index.search(&q, 3, &|_| true));
        let mut damaged = bytes.clone();
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        assert!(VectorIndex::from_bytes(&damaged).is_err());
        assert!(VectorIndex::from_bytes(&bytes[..bytes.len() - 4]).is_err());
    }
}

#[test]
fn an_index_with_dead_rows_saves_the_bytes_of_one_built_afresh_from_its_live_notes() {
    for precision in [Precision::F32, Precision::Int8] {
        // c.md, then a.md and b.md; a.md replaced (its first rows dead), c.md removed.
        let mut used = VectorIndex::new("test", 3, precision);
        used.insert("c.md", "h3", 3, vec![(None, unit(&[0.0, 0.0, 1.0]))]).unwrap();
        used.insert("a.md", "h0", 1, vec![(None, unit(&[0.2, 0.3, 0.9]))]).unwrap();
        used.insert("b.md", "h2", 2, vec![(None, unit(&[0.7, 0.7, 0.0]))]).unwrap();
        used.insert(
            "a.md",
            "h1",
            1,
            vec![(None, unit(&[1.0, 0.0, 0.0])), (Some("A › x".into()), unit(&[0.0, 1.0, 0.0]))],
        )
        .unwrap();
        used.remove("c.md");
        let mut fresh = sample(precision);
        fresh.remove("c.md");
        fresh.compact();
        assert_eq!(used.to_bytes(), fresh.to_bytes(), "{precision:?}");
    }
}

#[test]
fn loading_int8_vectors_makes_the_read_bytes_the_codes_instead_of_copying_them() {
    let bytes = sample(Precision::Int8).to_bytes();
    let read_at = bytes.as_ptr() as usize;
    let index = VectorIndex::from_vec(bytes).unwrap();
    assert_eq!(index.codes.as_ptr() as usize, read_at);
    assert_eq!(index.codes.len(), 4 * 3);
    let q = unit(&[0.1, 1.0, 0.0]);
    assert_eq!(index.search(&q, 3, &|_| true), sample(Precision::Int8).search(&q, 3, &|_| true));
}

/// Found by the fuzzer (tests/fuzz.rs, `vectors`): a header listing one note's rows twice and
/// another's not at all was read, and the index then saved a file it could not read back.
#[test]
fn a_header_listing_a_note_twice_is_refused() {
    let mut index = VectorIndex::new("test", 3, Precision::F32);
    for path in ["a.md", "b.md"] {
        index.insert(path, "h", 1, vec![(None, unit(&[1.0, 0.0, 0.0])), (None, unit(&[0.0, 1.0, 0.0]))]).unwrap();
    }
    let bytes = index.to_bytes();
    let len = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[10..10 + len]).unwrap();
    // Both notes have 2 rows: list a.md twice and b.md not at all. The row and note counts
    // still add up.
    header["counts"] = serde_json::json!([["a.md", 2], ["a.md", 2]]);
    let header = serde_json::to_vec(&header).unwrap();
    let mut damaged = b"VAVEC\x01".to_vec();
    damaged.extend_from_slice(&(header.len() as u32).to_le_bytes());
    damaged.extend_from_slice(&header);
    damaged.extend_from_slice(&bytes[10 + len..]);
    let Err(error) = VectorIndex::from_bytes(&damaged) else { panic!("refused") };
    assert!(error.to_string().contains("listed twice"), "{error}");
    assert!(VectorIndex::from_bytes(&bytes).is_ok());
}

/// `n` notes of two chunks each, pseudo-random unit vectors of `dims` around a shared offset.
fn many(n: usize, dims: usize, precision: Precision) -> (VectorIndex, Vec<Vec<f32>>) {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut index = VectorIndex::new("test", dims, precision);
    let mut vectors = Vec::new();
    for i in 0..n {
        let chunks: Vec<(Option<String>, Vec<f32>)> = (0..2)
            .map(|c| {
                let v = unit(&(0..dims).map(|d| next() + if d % 4 == 0 { 0.3 } else { 0.0 }).collect::<Vec<_>>());
                (Some(format!("chunk {c}")), v)
            })
            .collect();
        vectors.extend(chunks.iter().map(|c| c.1.clone()));
        index.insert(&format!("n{i:05}.md"), "h", 0, chunks).unwrap();
    }
    (index, vectors)
}

#[test]
fn above_the_sketch_threshold_the_first_pass_keeps_the_exact_top_hits() {
    for precision in [Precision::F32, Precision::Int8] {
        let (index, vectors) = many(SKETCHED_ABOVE / 2 + 500, 48, precision);
        assert!(index.vector_count() > SKETCHED_ABOVE);
        for (i, query) in vectors.iter().enumerate().step_by(997) {
            let paths = |hits: Vec<VectorHit>| hits.into_iter().map(|h| h.path).collect::<Vec<_>>();
            let exact = paths(index.search_rescoring(query, 10, &|_| true, 0));
            let sketched = paths(index.search(query, 10, &|_| true));
            assert_eq!(sketched[0], format!("n{:05}.md", i / 2), "a chunk's own note comes first ({precision:?})");
            let kept = exact.iter().filter(|p| sketched.contains(p)).count();
            assert!(kept >= 9, "{kept} of the exact top 10 kept ({precision:?})");
        }
    }
}

#[test]
fn notes_added_after_the_sketch_was_made_are_found_and_removed_ones_are_not() {
    let (mut index, _) = many(SKETCHED_ABOVE / 2 + 100, 32, Precision::Int8);
    let query = unit(&(0..32).map(|d| if d % 2 == 0 { 1.0 } else { -0.5 }).collect::<Vec<_>>());
    // The first search makes the sketch; the note inserted after it is sketched as it comes.
    index.search(&query, 5, &|_| true);
    index.insert("late.md", "h", 0, vec![(None, query.clone())]).unwrap();
    assert_eq!(index.search(&query, 5, &|_| true)[0].path, "late.md");
    index.remove("late.md");
    assert!(index.search(&query, 5, &|_| true).iter().all(|h| h.path != "late.md"));
}

#[test]
fn a_filtered_search_above_the_sketch_threshold_finds_the_notes_it_keeps_however_far() {
    let (index, vectors) = many(SKETCHED_ABOVE / 2 + 100, 32, Precision::Int8);
    // The note least like the query over the whole index: far outside the rows the first pass
    // would rescore without the filter.
    let query = &vectors[0];
    let far = index.search_rescoring(query, usize::MAX, &|_| true, 0).pop().unwrap().path;
    let only = |p: &str| p == far || p == "n00001.md";
    let hits = index.search(query, 5, &only);
    assert_eq!(hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(), vec!["n00001.md", far.as_str()]);
}
