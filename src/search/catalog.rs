//! What the index remembers about each note outside tantivy: title, tags, outgoing links,
//! mtime and content hash — and how Obsidian resolves a link to a note.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::note::{file_stem, ParsedNote};
use super::schema::normalize_link;

/// One indexed note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteEntry {
    pub title: String,
    pub tags: Vec<String>,
    /// Outgoing link targets, normalised (lowercase, no `.md`), each once.
    pub links: Vec<String>,
    /// File modification time when indexed (ms since the epoch).
    pub mtime: u64,
    /// [`ParsedNote::hash`] of the indexed text.
    pub hash: String,
}

impl NoteEntry {
    pub(crate) fn new(note: &ParsedNote, mtime: u64) -> NoteEntry {
        let mut links: Vec<String> = note.links.iter().filter_map(|l| normalize_link(&l.target)).collect();
        crate::sort::sort(&mut links);
        links.dedup();
        NoteEntry { title: note.title.clone(), tags: note.tags.clone(), links, mtime, hash: note.hash.clone() }
    }
}

/// Every indexed note by path, with a name index for link resolution.
#[derive(Debug, Clone, Default)]
pub(crate) struct Catalog {
    notes: BTreeMap<String, NoteEntry>,
    /// Lowercased file name without `.md` → paths with that name.
    by_name: HashMap<String, Vec<String>>,
}

impl Catalog {
    pub(crate) fn from_notes(notes: BTreeMap<String, NoteEntry>) -> Catalog {
        let mut catalog = Catalog { notes: BTreeMap::new(), by_name: HashMap::new() };
        for (path, entry) in notes {
            catalog.insert(path, entry);
        }
        catalog
    }

    pub(crate) fn notes(&self) -> &BTreeMap<String, NoteEntry> {
        &self.notes
    }

    pub(crate) fn get(&self, path: &str) -> Option<&NoteEntry> {
        self.notes.get(path)
    }

    pub(crate) fn len(&self) -> usize {
        self.notes.len()
    }

    pub(crate) fn insert(&mut self, path: String, entry: NoteEntry) {
        if !self.notes.contains_key(&path) {
            self.by_name.entry(file_stem(&path).to_lowercase()).or_default().push(path.clone());
        }
        self.notes.insert(path, entry);
    }

    pub(crate) fn remove(&mut self, path: &str) -> Option<NoteEntry> {
        let entry = self.notes.remove(path)?;
        let name = file_stem(path).to_lowercase();
        if let Some(paths) = self.by_name.get_mut(&name) {
            paths.retain(|p| p != path);
            if paths.is_empty() {
                self.by_name.remove(&name);
            }
        }
        Some(entry)
    }

    /// The note a normalised link target, written in the note `source`, resolves to — as
    /// Obsidian resolves it: a target that is a full path (without `.md`) names that note;
    /// otherwise, among the notes whose path ends with the target, the one sharing the most
    /// folders with `source` wins, then the shortest path, then the alphabetically first.
    pub(crate) fn resolve(&self, target: &str, source: Option<&str>) -> Option<&str> {
        let name = target.rsplit('/').next().unwrap_or(target);
        let candidates = self.by_name.get(name)?;
        let suffix = format!("/{target}");
        let stem_of = |p: &str| {
            let lower = p.to_lowercase();
            lower.strip_suffix(".md").map(str::to_string).unwrap_or(lower)
        };
        let source_folders: Vec<&str> = source.map(|s| s.split('/').collect::<Vec<_>>()).unwrap_or_default();
        let shared_folders = |p: &str| {
            let folders: Vec<&str> = p.split('/').collect();
            let n = folders.len().saturating_sub(1).min(source_folders.len().saturating_sub(1));
            (0..n).take_while(|&i| folders[i] == source_folders[i]).count()
        };
        candidates
            .iter()
            .filter(|p| {
                let stem = stem_of(p);
                stem == target || stem.ends_with(&suffix)
            })
            .min_by_key(|p| (stem_of(p) != target, std::cmp::Reverse(shared_folders(p)), p.len(), p.as_str()))
            .map(String::as_str)
    }

    /// The link targets that could resolve to `path`: each path suffix, lowercased, without `.md`
    /// (`en/Plugins/Search.md` → `en/plugins/search`, `plugins/search`, `search`).
    pub(crate) fn targets_for(path: &str) -> Vec<String> {
        let lower = path.to_lowercase();
        let stem = lower.strip_suffix(".md").unwrap_or(&lower).to_string();
        let mut out = vec![stem.clone()];
        out.extend(stem.match_indices('/').map(|(i, _)| stem[i + 1..].to_string()));
        out
    }
}
