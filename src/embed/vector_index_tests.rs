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
