use super::*;

fn analyse(text: &str) -> Vec<String> {
    tokens(&mut vault_analyzer(), text)
}

#[test]
fn latin_words_are_lowercased_folded_and_stemmed() {
    assert_eq!(analyse("Running searches, quickly!"), vec!["run", "search", "quick"]);
    assert_eq!(analyse("Über-Größe café"), vec!["uber", "gross", "cafe"]);
    assert_eq!(analyse("Привет мир"), vec!["привет", "мир"]);
}

#[test]
fn cjk_thai_and_khmer_runs_become_bigrams() {
    assert_eq!(analyse("双向链接"), vec!["双向", "向链", "链接"]);
    assert_eq!(analyse("オーディオ レコーダー"), vec!["オー", "ーデ", "ディ", "ィオ", "レコ", "コー", "ーダ", "ダー"]);
    assert_eq!(analyse("한국어"), vec!["한국", "국어"]);
    // A lone character is a unigram; scripts switch cleanly.
    assert_eq!(analyse("在Obsidian中"), vec!["在", "obsidian", "中"]);
    assert_eq!(analyse("ภาษาไทย").len(), "ภาษาไทย".chars().count() - 1);
}

#[test]
fn offsets_and_positions_follow_the_text() {
    let mut analyzer = vault_analyzer();
    let mut stream = analyzer.token_stream("ab 链接库");
    let mut seen = Vec::new();
    while stream.advance() {
        let t = stream.token();
        seen.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
    }
    assert_eq!(seen, vec![("ab".into(), 0, 2, 0), ("链接".into(), 3, 9, 1), ("接库".into(), 6, 12, 2)]);
}

#[test]
fn combining_marks_stay_inside_words() {
    // Bengali with a virama, Hindi with vowel signs, Hebrew with points: one word each.
    assert_eq!(analyse("ক্ষমা").len(), 1);
    assert_eq!(analyse("हिन्दी").len(), 1);
    assert_eq!(analyse("שָׁלוֹם").len(), 1);
}
