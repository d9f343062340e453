use super::*;
use tantivy::tokenizer::{Language, Stemmer};

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

/// The analyser as a plain chain of tantivy filters: what [`VaultTokenizer`] must equal.
fn reference(stem: bool) -> TextAnalyzer {
    use tantivy::tokenizer::RemoveLongFilter;
    let base = TextAnalyzer::builder(ScriptTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter);
    if stem {
        base.filter(Stemmer::new(Language::English)).build()
    } else {
        base.build()
    }
}

fn all_tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let t = stream.token();
        out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
    }
    out
}

#[test]
fn the_cached_analyser_gives_exactly_the_filter_chains_tokens() {
    let long = "x".repeat(MAX_TOKEN_BYTES);
    let texts = [
        "Running searches, quickly! The THE the Über-Größe café naïve Ǆemal ﬁle ＡＢＣ ß İstanbul",
        "Привет мир, ΟΔΥΣΣΕΥΣ Ελληνικά, عربي, שָׁלוֹם, हिन्दी, ক্ষমা, ภาษาไทย, ລາວ, ខ្មែរ",
        "在Obsidian中 双向链接 オーディオ レコーダー 한국어 ｶﾀｶﾅ 𠀀𠀁 ・ー、。",
        &format!("before {long} after {long}x ok"),
        "",
    ];
    let mut cached = vault_analyzer();
    let mut unstemmed = unstemmed_analyzer();
    for _ in 0..50 {
        // Again and again: through the uncached start, each growth of the cache, and its hits.
        for text in texts {
            assert_eq!(all_tokens(&mut cached, text), all_tokens(&mut reference(true), text), "{text}");
            assert_eq!(all_tokens(&mut unstemmed, text), all_tokens(&mut reference(false), text), "{text}");
        }
    }
}

#[test]
fn every_character_is_classified_and_normalised_as_by_the_tables_and_the_filter_chain() {
    let mut analyser = vault_analyzer();
    let mut plain = reference(true);
    for u in 0..=0x3FFFF {
        let Some(c) = char::from_u32(u) else { continue };
        assert_eq!(class(c), classify(c), "U+{u:04X}");
        // Alone, and in a word that the stemmer rewrites.
        for word in [c.to_string(), format!("runs{c}"), format!("{c}ing")] {
            assert_eq!(all_tokens(&mut analyser, &word), all_tokens(&mut plain, &word), "U+{u:04X}");
        }
    }
}

/// Every 7th note of the sample vault (34 languages), when it is there.
#[test]
fn the_sample_vault_analyses_as_with_the_filter_chain() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vaults/obsidian-help");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut cached = vault_analyzer();
    let mut plain = reference(true);
    for path in files.iter().step_by(7) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        assert_eq!(all_tokens(&mut cached, &text), all_tokens(&mut plain, &text), "{}", path.display());
    }
}

/// Why bigrams skip normalisation: no character of those scripts has a case or a folding.
#[test]
fn characters_cut_into_bigrams_are_their_own_normal_form() {
    for u in 0..=0x3FFFF {
        let Some(c) = char::from_u32(u) else { continue };
        if classify(c) == Class::Bigram {
            assert_eq!(fold_slow(c), c.to_string(), "U+{u:04X}");
        }
    }
}

#[test]
fn the_snippet_analyzer_stems_only_words_that_could_become_a_query_term() {
    let text = "Daily notes, filed daily: filing the Dailies and Ünïcode meetings";
    let full = tokens(&mut vault_analyzer(), text);
    let terms = ["daili", "file", "meet"];
    let partial = tokens(&mut snippet_analyzer(terms), text);
    assert_eq!(full.len(), partial.len());
    for (f, p) in full.iter().zip(&partial) {
        if terms.contains(&f.as_str()) {
            // Every word that stems to a term is stemmed to it.
            assert_eq!(p, f);
        } else {
            // The others may stay unstemmed, and then equal no term.
            assert!(p == f || !terms.contains(&p.as_str()), "{f} / {p}");
        }
    }
    assert_eq!(partial, ["daili", "notes", "file", "daili", "file", "the", "daili", "and", "unicode", "meet"]);
}
