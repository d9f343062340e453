//! Finding an earlier chat by what was said in it: the chat history's search box looks through
//! every saved chat's title, the requests and the answers (not the tool results: the notes a
//! task read would match everything), and shows the passage where the words were said.

use serde::Serialize;
use ts_rs::TS;

use super::chat_store::{load_all_chats, ChatSummary};
use super::transcript::TranscriptStep;
use crate::vault::Vault;
use crate::Result;

/// The most query words a search looks for (the rest are ignored).
const MAX_WORDS: usize = 8;

/// How much of a passage comes before its first found word, in characters.
const PASSAGE_LEAD: usize = 50;

/// A passage's length, in characters, before it is cut at a word.
const PASSAGE_CHARS: usize = 180;

/// A saved chat that holds every word of a search.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ChatMatch {
    pub chat: ChatSummary,
    /// Where the words were said; `None` for an empty search, or when only the title holds them.
    pub passage: Option<ChatPassage>,
}

/// The passage of a chat that holds the most of a search's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ChatPassage {
    /// The turn of the chat's transcript it is in (to scroll to).
    pub turn: usize,
    pub by: Speaker,
    /// One line of text, the words found marked `**…**` (the text's own `**` left out), with
    /// `…` where it is cut.
    pub text: String,
}

/// Who said a passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    You,
    Agent,
}

/// The saved chats as read once, to be searched as the user types (each search would otherwise
/// read every chat again).
#[derive(Debug, Default)]
pub struct ChatArchive {
    /// Most recently updated first.
    chats: Vec<ArchivedChat>,
}

#[derive(Debug)]
struct ArchivedChat {
    summary: ChatSummary,
    title: Folded,
    said: Vec<Said>,
}

/// One request or answer text of a chat.
#[derive(Debug)]
struct Said {
    turn: usize,
    by: Speaker,
    text: Folded,
}

impl ChatArchive {
    /// Reads every saved chat in `vault` (a damaged file is left out).
    pub async fn load(vault: &dyn Vault) -> Result<ChatArchive> {
        let chats = load_all_chats(vault).await?;
        let chats = chats
            .into_iter()
            .map(|chat| {
                let said = chat
                    .transcript()
                    .turns
                    .into_iter()
                    .enumerate()
                    .flat_map(|(turn, t)| {
                        let request = t.request.map(|r| Said { turn, by: Speaker::You, text: Folded::new(r.text) });
                        let answers = t.steps.into_iter().filter_map(move |step| match step {
                            TranscriptStep::Text { text } if !text.trim().is_empty() => {
                                Some(Said { turn, by: Speaker::Agent, text: Folded::new(text) })
                            }
                            _ => None,
                        });
                        request.into_iter().chain(answers)
                    })
                    .collect();
                let summary = chat.summary();
                ArchivedChat { title: Folded::new(summary.title.clone()), summary, said }
            })
            .collect();
        Ok(ChatArchive { chats })
    }

    /// Leaves the chat `id` out from now on (it was deleted); whether it was here.
    pub fn forget(&mut self, id: &str) -> bool {
        let before = self.chats.len();
        self.chats.retain(|c| c.summary.id != id);
        self.chats.len() != before
    }

    /// Every chat, most recently updated first.
    pub fn summaries(&self) -> Vec<ChatSummary> {
        self.chats.iter().map(|c| c.summary.clone()).collect()
    }

    /// The chats that hold every word of `query` (case and Latin letters' accents aside; a word
    /// matches inside a longer one, so a CJK phrase needs no spaces), those whose title holds
    /// them all first, then the most recently updated. An empty query finds every chat.
    pub fn search(&self, query: &str) -> Vec<ChatMatch> {
        let words = query_words(query);
        let mut titled = Vec::new();
        let mut others = Vec::new();
        for chat in &self.chats {
            let in_title = words.iter().filter(|w| chat.title.folded.contains(w.as_str())).count();
            let all_said = words.iter().all(|w| {
                chat.title.folded.contains(w.as_str()) || chat.said.iter().any(|s| s.text.folded.contains(w.as_str()))
            });
            if !all_said {
                continue;
            }
            let passage = best_passage(&chat.said, &words);
            let found = ChatMatch { chat: chat.summary.clone(), passage };
            if in_title == words.len() {
                titled.push(found);
            } else {
                others.push(found);
            }
        }
        titled.extend(others);
        titled
    }
}

/// The words of `query`, lower-cased, each once, at most [`MAX_WORDS`].
fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in query.split_whitespace().map(fold) {
        if !words.contains(&word) && words.len() < MAX_WORDS {
            words.push(word);
        }
    }
    words
}

/// The text that holds the most of `words` (the first such), as a passage around its first
/// found word.
fn best_passage(said: &[Said], words: &[String]) -> Option<ChatPassage> {
    let mut best: Option<(&Said, usize)> = None;
    for s in said {
        let held = words.iter().filter(|w| s.text.folded.contains(w.as_str())).count();
        if held > 0 && best.is_none_or(|(_, most)| held > most) {
            best = Some((s, held));
        }
    }
    let (said, _) = best?;
    Some(ChatPassage { turn: said.turn, by: said.by, text: said.text.passage(words) })
}

/// A text with the form it is searched in: lower case, Latin letters without their accents (see
/// [`fold`]).
#[derive(Debug)]
struct Folded {
    text: String,
    folded: String,
}

impl Folded {
    fn new(text: String) -> Folded {
        let folded = fold(&text);
        Folded { text, folded }
    }

    /// Where `words` are found in the text, sorted, overlapping ones merged.
    fn found(&self, words: &[String]) -> Vec<std::ops::Range<usize>> {
        // Each byte of the folded form, and one past its end, maps to the byte of the text its
        // character starts at: made here, for the few texts a passage is cut from, rather than
        // kept for every text searched.
        let mut origin = Vec::with_capacity(self.folded.len() + 1);
        let mut one = String::new();
        for (at, c) in self.text.char_indices() {
            one.clear();
            fold_char(c, &mut one);
            origin.extend(std::iter::repeat_n(at, one.len()));
        }
        origin.push(self.text.len());
        crate::sort::merged_ranges(
            words
                .iter()
                .flat_map(|w| self.folded.match_indices(w.as_str()).map(|(at, m)| origin[at]..origin[at + m.len()]))
                .filter(|r| !r.is_empty())
                .collect(),
        )
    }

    /// The passage around the first of `words` found: from a few words before it (or its
    /// line's start), about [`PASSAGE_CHARS`] long, on one line, the words marked.
    fn passage(&self, words: &[String]) -> String {
        let text = self.text.as_str();
        let found = self.found(words);
        let first = found.first().map_or(0, |r| r.start);
        let start = passage_start(text, first);
        let end = passage_end(text, start);
        let mut out = String::new();
        if start > 0 {
            out.push('…');
        }
        let mut at = start;
        for range in found.iter().filter(|r| r.start >= start && r.end <= end) {
            out.push_str(&plain(&text[at..range.start]));
            out.push_str("**");
            out.push_str(&plain(&text[range.clone()]));
            out.push_str("**");
            at = range.end;
        }
        out.push_str(&plain(&text[at..end]));
        let mut out = out.split_whitespace().collect::<Vec<_>>().join(" ");
        if end < text.len() {
            out.push('…');
        }
        out
    }
}

/// `text` without the `**` marks of its own (they would read as ours).
fn plain(text: &str) -> String {
    text.replace("**", "")
}

/// Where a passage whose first word is at byte `first` starts: its line's start when that is
/// at most [`PASSAGE_LEAD`] characters back, else a word start about that far back.
fn passage_start(text: &str, first: usize) -> usize {
    let before = &text[..first];
    let mut start = first;
    for (taken, (i, c)) in before.char_indices().rev().enumerate() {
        if c == '\n' {
            return i + 1;
        }
        if taken >= PASSAGE_LEAD {
            break;
        }
        start = i;
    }
    if start == 0 {
        return 0;
    }
    // Not inside a word: after the first space from there on.
    match text[start..first].find(char::is_whitespace) {
        Some(space) => start + space + 1,
        None => start,
    }
}

/// Where a passage starting at byte `start` ends: [`PASSAGE_CHARS`] characters on, back to the
/// end of a word.
fn passage_end(text: &str, start: usize) -> usize {
    let Some((cut, _)) = text[start..].char_indices().nth(PASSAGE_CHARS) else { return text.len() };
    let cut = start + cut;
    match text[start..cut].rfind(char::is_whitespace) {
        Some(space) if space > 0 => start + space,
        _ => cut,
    }
}

/// `text` as it is searched: lower case, and Latin letters without their accents, so that a word
/// typed without them finds it ("cafe" finds "Café", "strasse" "Straße").
fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            folded.push(c.to_ascii_lowercase());
        } else {
            fold_char(c, &mut folded);
        }
    }
    folded
}

/// One character of [`fold`]. Only Latin letters lose their marks: in other scripts a mark
/// makes another letter (a kana's voicing mark, Hangul's syllables), which typing without it
/// does not mean.
fn fold_char(c: char, out: &mut String) {
    for lower in c.to_lowercase() {
        match lower {
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'œ' => out.push_str("oe"),
            'þ' => out.push_str("th"),
            'ø' => out.push('o'),
            'ł' => out.push('l'),
            'đ' => out.push('d'),
            '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}' => {
                unicode_normalization::char::decompose_canonical(lower, |part| {
                    if !unicode_normalization::char::is_combining_mark(part) {
                        out.push(part);
                    }
                });
            }
            other => out.push(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(q: &str) -> Vec<String> {
        query_words(q)
    }

    #[test]
    fn a_passage_marks_every_word_found_and_says_where_it_is_cut() {
        let text = format!("The sourdough starter needs feeding. Bake the sourdough at 230 °C. {}", "x ".repeat(120));
        let passage = Folded::new(text).passage(&words("Sourdough bake"));
        assert!(
            passage.starts_with("The **sourdough** starter needs feeding. **Bake** the **sourdough** at 230 °C."),
            "{passage}"
        );
        assert!(passage.ends_with('…'), "{passage}");
    }

    #[test]
    fn a_passage_starts_a_few_words_before_its_first_word_and_never_inside_one() {
        let text = format!("{}needle in the haystack", "lorem ipsum dolor sit amet ".repeat(10));
        let passage = Folded::new(text).passage(&words("needle"));
        assert!(passage.starts_with('…'), "{passage}");
        let lead = passage.trim_start_matches('…');
        assert!(["lorem", "ipsum", "dolor", "sit", "amet"].iter().any(|w| lead.starts_with(w)), "{passage}");
        assert!(passage.contains("**needle** in the haystack"), "{passage}");
        assert!(!passage.ends_with('…'));
    }

    #[test]
    fn case_and_lengths_that_change_when_lower_cased_still_map_to_the_text() {
        // `İ` lower-cases to two characters (three bytes where it had two).
        let passage = Folded::new("İzmir, then the ISTANBUL notes, and **bold** text".to_string())
            .passage(&words("istanbul bold"));
        assert_eq!(passage, "İzmir, then the **ISTANBUL** notes, and **bold** text");
        let cjk = Folded::new("我买了一台录音机。".to_string()).passage(&words("录音"));
        assert_eq!(cjk, "我买了一台**录音**机。");
    }

    #[test]
    fn latin_letters_are_found_without_their_accents_and_other_scripts_keep_theirs() {
        let passage = Folded::new("Un Café crème à Zürich, puis la Straße.".to_string())
            .passage(&words("cafe creme zurich strasse"));
        assert_eq!(passage, "Un **Café** **crème** à **Zürich**, puis la **Straße**.");
        // Typed with the accents, they find the text written without them too.
        assert_eq!(Folded::new("my resume".to_string()).passage(&words("résumé")), "my **resume**");
        // A kana's voicing mark makes another word: か does not find が.
        assert!(Folded::new("がっこう".to_string()).found(&words("かっこう")).is_empty());
        assert_eq!(Folded::new("한국어 노트".to_string()).passage(&words("한국")), "**한국**어 노트");
    }

    #[test]
    fn query_words_are_lower_cased_once_each_and_at_most_eight() {
        assert_eq!(words("  Bread BREAD  oven "), ["bread", "oven"]);
        assert_eq!(words("a b c d e f g h i j").len(), MAX_WORDS);
        assert!(words("   ").is_empty());
    }
}
