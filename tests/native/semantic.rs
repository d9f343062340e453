//! Semantic search natively: the tokenizer and MiniLM against the reference implementation,
//! the static model, the vector index over real notes, hybrid ranking, the API embedder against
//! a local server, and the semantic_search tool.

use vault_agent::embed::{dot, WordPiece};

use crate::semantic_support::{minilm, minilm_dir, sample_vault};

#[derive(serde::Deserialize)]
struct Reference {
    tokenized: Vec<Tokenized>,
    sentences: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

#[derive(serde::Deserialize)]
struct Tokenized {
    path: String,
    chars: usize,
    ids: Vec<u32>,
}

fn reference() -> Reference {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/embed/minilm_reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn wordpiece_matches_the_reference_tokenizer_on_notes_in_every_script() {
    let vocab = WordPiece::from_vocab(&std::fs::read_to_string(minilm_dir().join("vocab.txt")).unwrap()).unwrap();
    let reference = reference();
    assert!(reference.tokenized.len() > 100);
    for case in &reference.tokenized {
        let text: String =
            std::fs::read_to_string(sample_vault().join(&case.path)).unwrap().chars().take(case.chars).collect();
        assert_eq!(vocab.pieces(&text, usize::MAX), case.ids, "{}", case.path);
    }
}

#[test]
fn minilm_matches_sentence_transformers() {
    let model = minilm(256);
    let reference = reference();
    let texts: Vec<&str> = reference.sentences.iter().map(String::as_str).collect();
    let ours = model.embed_texts(&texts);
    for ((text, ours), theirs) in texts.iter().zip(&ours).zip(&reference.vectors) {
        let cos = dot(ours, theirs);
        assert!(cos > 0.9999, "{text}: cosine {cos}");
    }
}
