//! Which language a query and a note are in, from cheap signs that need no dictionary: the
//! script of their letters, English function words, and a multilingual vault's folder layout
//! (`en/`, `pt-br/`, `zh/`, as Obsidian's own help vault has).
//!
//! Searches use it to list notes in the query's language (or, when a query's words do not say,
//! the user's) before the same notes in other languages: "canvas" matches the title of the
//! canvas note in every translation, and the English one should come first for an English
//! reader. Notes whose language is unknown are neither preferred nor pushed down.

/// A writing system, as far as ranking needs to tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Latin,
    Cyrillic,
    Greek,
    Arabic,
    Hebrew,
    /// Chinese characters without kana.
    Han,
    /// Japanese: kana, with or without Chinese characters.
    Kana,
    Hangul,
    Thai,
    Khmer,
    Bengali,
    Devanagari,
    /// Any other script (Georgian, Tamil, …): it tells languages apart only by being itself.
    Other(u32),
}

/// Other-language notes' scores are multiplied by this. Tuned on the whole sample vault with
/// the English questions of `bench/semantic_queries.json` (`cargo bench --bench semantic`).
pub const OTHER_LANGUAGE_FACTOR: f32 = 0.5;

/// Hits ranked before notes in other languages are pushed down, at first (see
/// [`crate::search::SearchQuery::language`] and [`crate::search::SearchIndex::search`], which
/// widen it when they must; hybrid search does the same with the vectors' hits).
const LANGUAGE_WINDOW: usize = 200;

/// Language codes a vault may use as top-level folders: Obsidian's interface languages, lower
/// case. A folder counts only when the candidates of a search span at least two of them.
const LANGUAGE_FOLDERS: &[&str] = &[
    "af", "am", "ar", "be", "bg", "bn", "ca", "cs", "da", "de", "dv", "el", "en", "eo", "es", "eu", "fa", "fi", "fr",
    "gl", "he", "hi", "hu", "id", "it", "ja", "ka", "km", "ko", "ky", "lv", "ml", "ms", "nan-tw", "ne", "nl", "nn",
    "no", "oc", "or", "pl", "pt", "pt-br", "ro", "ru", "sa", "si", "sk", "sq", "sr", "sv", "ta", "te", "th", "tl",
    "tr", "tt", "uk", "ur", "uz", "vi", "zh", "zh-tw",
];

/// English words that questions are made of and other Latin-script languages do not use: one
/// says English.
const ENGLISH_MARKERS: &[&str] = &[
    "the", "how", "what", "where", "which", "why", "when", "who", "does", "did", "my", "i", "you", "your", "with",
    "and", "there", "should", "would", "could", "want", "need", "this", "that", "these", "without", "about", "from",
    "into", "using", "get", "make", "has", "after", "before",
];

/// English words that are also words elsewhere (`do` in Portuguese, `is` in Dutch, `to` in
/// Polish): two of them say English.
const WEAK_ENGLISH_MARKERS: &[&str] =
    &["can", "do", "is", "are", "to", "of", "or", "it", "way", "for", "on", "at", "use", "have", "an"];

/// The script most of `text`'s letters are written in; `None` when it has no letters.
pub fn script_of(text: &str) -> Option<Script> {
    let mut counts: Vec<(Script, usize)> = Vec::new();
    let mut kana = false;
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        let s = char_script(c);
        kana |= s == Script::Kana;
        match counts.iter_mut().find(|(x, _)| *x == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    let best = counts.iter().max_by_key(|(_, n)| *n).map(|(s, _)| *s)?;
    // Japanese mixes kanji and kana: any kana makes Chinese characters Japanese.
    Some(if best == Script::Han && kana { Script::Kana } else { best })
}

fn char_script(c: char) -> Script {
    match c as u32 {
        0x0000..=0x024F | 0x1E00..=0x1EFF => Script::Latin,
        0x0370..=0x03FF | 0x1F00..=0x1FFF => Script::Greek,
        0x0400..=0x052F => Script::Cyrillic,
        0x0590..=0x05FF => Script::Hebrew,
        0x0600..=0x06FF | 0x0750..=0x077F | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => Script::Arabic,
        0x0900..=0x097F => Script::Devanagari,
        0x0980..=0x09FF => Script::Bengali,
        0x0E00..=0x0E7F => Script::Thai,
        0x1780..=0x17FF => Script::Khmer,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Script::Hangul,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3FFFF => Script::Han,
        // Blocks of 128 code points stand for the scripts not named above.
        u => Script::Other(u >> 7),
    }
}

/// The script a language (code as in [`LANGUAGE_FOLDERS`]) is written in.
fn script_of_language(code: &str) -> Script {
    match primary(code) {
        "ru" | "uk" | "be" | "bg" | "sr" | "ky" | "tt" => Script::Cyrillic,
        "el" => Script::Greek,
        "ar" | "fa" | "ur" => Script::Arabic,
        "he" => Script::Hebrew,
        "zh" | "nan" => Script::Han,
        "ja" => Script::Kana,
        "ko" => Script::Hangul,
        "th" => Script::Thai,
        "km" => Script::Khmer,
        "bn" => Script::Bengali,
        "hi" | "ne" | "sa" => Script::Devanagari,
        "am" | "dv" | "ka" | "ml" | "or" | "si" | "ta" | "te" => Script::Other(0),
        _ => Script::Latin,
    }
}

/// `pt` of `pt-br`.
fn primary(code: &str) -> &str {
    code.split(['-', '_']).next().unwrap_or(code)
}

/// The language code of a note's top-level folder, if it names one (`pt-br/Plugins/Canvas.md`
/// → `pt-br`).
pub fn folder_language(path: &str) -> Option<&'static str> {
    let (first, _) = path.split_once('/')?;
    LANGUAGE_FOLDERS.iter().find(|c| c.eq_ignore_ascii_case(first)).copied()
}

/// What a search prefers: the language its words are in, else the user's.
#[derive(Debug, Clone, PartialEq)]
pub struct LanguagePreference {
    /// A language code (`en`), when the query or the user names one.
    language: Option<String>,
    /// The query's script, when it is not Latin (a Latin query's script says little).
    script: Option<Script>,
}

impl LanguagePreference {
    /// The preference for `query`, falling back on `user_language` (a code such as `en` or
    /// `pt-BR`; empty or `None` for none).
    pub fn new(query: &str, user_language: Option<&str>) -> LanguagePreference {
        let script = script_of(query);
        let user = user_language.map(|l| l.trim().to_ascii_lowercase()).filter(|l| !l.is_empty());
        match script {
            Some(Script::Latin) => {
                let words: Vec<String> =
                    query.split(|c: char| !c.is_alphanumeric() && c != '\'').map(str::to_lowercase).collect();
                let strong = words.iter().any(|w| ENGLISH_MARKERS.contains(&w.as_str()));
                let weak = words.iter().filter(|w| WEAK_ENGLISH_MARKERS.contains(&w.as_str())).count();
                let english = strong || weak >= 2;
                // English question words beat the user's setting, which is the fallback.
                let language = if english { Some("en".to_string()) } else { user };
                LanguagePreference { language, script: None }
            }
            Some(s) => LanguagePreference { language: None, script: Some(s) },
            None => LanguagePreference { language: user, script: None },
        }
    }

    /// Whether this preference can change an order.
    pub fn is_some(&self) -> bool {
        self.language.is_some() || self.script.is_some()
    }

    /// Whether a note in `note_language` (a code) or written in `note_script` is in the
    /// preferred language: `Some(true)` or `Some(false)`, or `None` when unknown. The script is
    /// asked for only when the language does not say.
    fn matches(&self, note_language: Option<&str>, note_script: impl FnOnce() -> Option<Script>) -> Option<bool> {
        if let Some(script) = self.script {
            let theirs = note_language.map(script_of_language).or_else(note_script)?;
            return Some(theirs == script);
        }
        let wanted = self.language.as_deref()?;
        match note_language {
            Some(code) => Some(code == wanted || primary(code) == primary(wanted)),
            // A title in another script than the wanted language's is in another language.
            None => match note_script() {
                Some(s) if s != Script::Latin => Some(s == script_of_language(wanted)),
                _ => None,
            },
        }
    }

    /// How many candidates a search that needs its first `needed` ranks at first: with a
    /// preference, at least `LANGUAGE_WINDOW` (200), for notes in other languages to fall behind
    /// (see [`rank_in_language`]).
    pub fn window(&self, needed: usize) -> usize {
        if self.is_some() {
            needed.max(LANGUAGE_WINDOW)
        } else {
            needed
        }
    }

    /// What each note's score is multiplied by: [`OTHER_LANGUAGE_FACTOR`] for a note in another
    /// language, 1 otherwise; `None` when nothing changes. `paths` are the candidates', best
    /// first; `title` gives a candidate's title, read only when its folder does not say its
    /// language. Folders name languages only when the candidates span two language folders or
    /// more, so a lone `ml/` folder in a vault is just a folder.
    pub fn factors<'a>(&self, paths: &[&'a str], title: impl Fn(&'a str) -> &'a str) -> Option<Vec<f32>> {
        if !self.is_some() || paths.len() < 2 {
            return None;
        }
        let languages: Vec<Option<&str>> = paths.iter().map(|p| folder_language(p)).collect();
        let first = languages.iter().flatten().next();
        let layout = first.is_some_and(|first| languages.iter().flatten().any(|l| l != first));
        let factors: Vec<f32> = paths
            .iter()
            .zip(&languages)
            .map(|(&path, &language)| {
                let language = if layout { language } else { None };
                match self.matches(language, || script_of(title(path))) {
                    Some(false) => OTHER_LANGUAGE_FACTOR,
                    _ => 1.0,
                }
            })
            .collect();
        factors.iter().any(|&f| f != 1.0).then_some(factors)
    }
}

/// Multiplies each item's score by its factor (a negative score is divided, so that it falls
/// too) and sorts best first, ties kept in their order.
fn apply_factors<T>(items: &mut Vec<T>, factors: &[f32], score: impl Fn(&mut T) -> &mut f32) {
    for (item, &f) in items.iter_mut().zip(factors) {
        let s = score(item);
        *s = if *s >= 0.0 { *s * f } else { *s / f };
    }
    let mut keyed: Vec<(f32, T)> = items.drain(..).map(|mut i| (*score(&mut i), i)).collect();
    crate::sort::sort_by(&mut keyed, |a, b| b.0.total_cmp(&a.0));
    items.extend(keyed.into_iter().map(|k| k.1));
}

/// One window of a search's candidates, best first, with their scores before any factor.
pub struct Window<T> {
    pub items: Vec<T>,
    /// No candidate lies outside the window (or none that could be a hit).
    pub complete: bool,
    /// The window's last score before it was cut to its hits: no candidate outside it scores
    /// more.
    pub last: f32,
}

/// Candidates with notes in other languages pushed down (scores multiplied by their factors,
/// then sorted again), exact for their first `needed`. A window is ranked (`first`, as wide as
/// `width`), its factors applied, and the window widened ×4 (`widen` ranks one as wide) until
/// no candidate outside it could reach the first `needed`: a candidate outside scores at most
/// the window's last raw score, and a factor never raises a score. A page that one language's
/// notes fill is exact with the first window; a page where twenty translations of each note
/// outscored the user's own needs a wider one. `factors` gives a window's factors, `None` when
/// nothing changes.
pub fn rank_in_language<T>(
    first: Window<T>,
    mut width: usize,
    needed: usize,
    mut widen: impl FnMut(usize) -> crate::Result<Window<T>>,
    factors: impl Fn(&[T]) -> Option<Vec<f32>>,
    score: impl Fn(&mut T) -> &mut f32,
) -> crate::Result<Vec<T>> {
    let mut window = first;
    loop {
        let Some(factors) = factors(&window.items) else { return Ok(window.items) };
        apply_factors(&mut window.items, &factors, &score);
        let settled = window.items.get_mut(needed.saturating_sub(1)).is_some_and(|c| *score(c) >= window.last);
        if window.complete || settled {
            return Ok(window.items);
        }
        width *= 4;
        window = widen(width)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_told_apart_by_their_letters() {
        assert_eq!(script_of("canvas"), Some(Script::Latin));
        assert_eq!(script_of("Холст"), Some(Script::Cyrillic));
        assert_eq!(script_of("白板"), Some(Script::Han));
        assert_eq!(script_of("キャンバス 画面"), Some(Script::Kana));
        assert_eq!(script_of("캔버스"), Some(Script::Hangul));
        assert_eq!(script_of("ক্যানভাস"), Some(Script::Bengali));
        assert_eq!(script_of("123 !?"), None);
    }

    #[test]
    fn folders_name_languages() {
        assert_eq!(folder_language("pt-br/Plugins/Canvas.md"), Some("pt-br"));
        assert_eq!(folder_language("zh-TW/外掛/白板.md"), Some("zh-tw"));
        assert_eq!(folder_language("Projects/en.md"), None);
        assert_eq!(folder_language("en.md"), None);
    }

    struct Hit(&'static str, &'static str, f32);

    fn order(pref: &LanguagePreference, hits: Vec<Hit>) -> Vec<&'static str> {
        let mut hits = hits;
        let paths: Vec<&str> = hits.iter().map(|h| h.0).collect();
        let title = |path: &str| hits.iter().find(|h| h.0 == path).map_or("", |h| h.1);
        if let Some(factors) = pref.factors(&paths, title) {
            apply_factors(&mut hits, &factors, |h| &mut h.2);
        }
        hits.iter().map(|h| h.0).collect()
    }

    #[test]
    fn an_english_question_prefers_english_notes_and_a_bare_word_the_users_language() {
        let hits = || {
            vec![
                Hit("pt-br/Plugins/Canvas.md", "Canvas", 9.0),
                Hit("sv/Plugins/Canvas.md", "Canvas", 8.0),
                Hit("en/Plugins/Canvas.md", "Canvas", 7.0),
                Hit("Notes/Canvas ideas.md", "Canvas ideas", 6.0),
            ]
        };
        let english = LanguagePreference::new("how do I make a canvas", None);
        assert_eq!(order(&english, hits())[0], "en/Plugins/Canvas.md");
        // A word alone says nothing: the user's language decides, and without one nothing moves.
        assert_eq!(order(&LanguagePreference::new("canvas", Some("sv")), hits())[0], "sv/Plugins/Canvas.md");
        assert_eq!(order(&LanguagePreference::new("canvas", None), hits())[0], "pt-br/Plugins/Canvas.md");
        // A Portuguese question sharing one word with English (`do`) is not read as English.
        let portuguese = LanguagePreference::new("como importar notas do Evernote", Some("pt-BR"));
        assert_eq!(order(&portuguese, hits())[0], "pt-br/Plugins/Canvas.md");
        // A note outside the language folders keeps its score.
        let en = order(&LanguagePreference::new("canvas", Some("en")), hits());
        assert_eq!(
            en,
            ["en/Plugins/Canvas.md", "Notes/Canvas ideas.md", "pt-br/Plugins/Canvas.md", "sv/Plugins/Canvas.md"]
        );
    }

    #[test]
    fn a_query_in_another_script_prefers_notes_written_in_it() {
        let pref = LanguagePreference::new("白板", Some("en"));
        let hits = vec![
            Hit("en/Plugins/Canvas.md", "Canvas", 9.0),
            Hit("ja/プラグイン/キャンバス.md", "キャンバス", 8.0),
            Hit("zh/插件/白板.md", "白板", 5.0),
        ];
        assert_eq!(order(&pref, hits)[0], "zh/插件/白板.md");
        // Without language folders, a title's script tells.
        let pref = LanguagePreference::new("Холст", None);
        let hits = vec![Hit("Ideas/Canvas.md", "Canvas board", 9.0), Hit("Ideas/Холст.md", "Холст", 6.0)];
        assert_eq!(order(&pref, hits), ["Ideas/Холст.md", "Ideas/Canvas.md"]);
    }

    #[test]
    fn one_language_folder_alone_is_not_a_layout() {
        // A vault with a folder that happens to be called `ml/` (machine learning) and no other.
        let pref = LanguagePreference::new("how do neural networks learn", Some("en"));
        let hits = vec![Hit("ml/Backprop.md", "Backprop", 9.0), Hit("Notes/Learning.md", "Learning", 5.0)];
        assert_eq!(order(&pref, hits), ["ml/Backprop.md", "Notes/Learning.md"]);
    }
}
