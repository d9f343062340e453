//! The memory store: every entry in one JSON file, read whole and written whole through the
//! vault (a failed write leaves the file as it was). The first memory file, `facts.md` (a
//! Markdown list the flush appended to), is read as facts and folded into the store on its
//! next write, so nothing saved before is lost.

use serde::{Deserialize, Serialize};

use super::{json_file, MemoryEntry, MemoryKind};
use crate::guard::Secrets;
use crate::vault::{Vault, VaultPath};
use crate::{Error, Result};

/// Where memory lives.
pub const MEMORY_FOLDER: &str = ".obsidian-agent/memory";
/// The store.
pub const MEMORY_FILE: &str = ".obsidian-agent/memory/memory.json";
/// The Markdown list earlier versions kept; read as facts, removed once folded into the store.
pub const LEGACY_FILE: &str = ".obsidian-agent/memory/facts.md";

/// Longest entry kept (characters); memory is for short, durable facts.
const MAX_CHARS: usize = 500;

/// The file's shape.
#[derive(Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    entries: Vec<MemoryEntry>,
}

const VERSION: u32 = 1;

/// The entries, oldest first, as loaded from the vault. Changes are kept in memory until
/// [`MemoryStore::save`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryStore {
    entries: Vec<MemoryEntry>,
    /// Whether `facts.md` was there (it is removed on save: its facts are in the store then).
    legacy: bool,
}

impl MemoryStore {
    /// Reads the store and the legacy `facts.md` (its lines not already in the store become
    /// facts). Missing files are an empty memory; a store that does not parse is an error, so
    /// a later save never overwrites entries it could not read.
    pub async fn load(vault: &dyn Vault) -> Result<Self> {
        let mut entries = json_file::load::<StoreFile>(vault, MEMORY_FILE, "a memory store")
            .await?
            .map(|file| file.entries)
            .unwrap_or_default();
        let legacy = json_file::read_optional(vault, LEGACY_FILE).await?;
        let mut store = MemoryStore { entries: Vec::new(), legacy: legacy.is_some() };
        store.entries.append(&mut entries);
        for line in legacy.iter().flat_map(|text| text.lines()) {
            if let Some(fact) = line.trim().strip_prefix("- ") {
                store.push(MemoryKind::Fact, fact, 0, None);
            }
        }
        Ok(store)
    }

    /// Loads the store, applies `change` and saves the store — unless `change` fails, which
    /// leaves it as it was.
    pub async fn update<T>(vault: &dyn Vault, change: impl FnOnce(&mut MemoryStore) -> Result<T>) -> Result<T> {
        let mut store = MemoryStore::load(vault).await?;
        let out = change(&mut store)?;
        store.save(vault).await?;
        Ok(out)
    }

    /// Every entry, oldest first.
    pub fn entries(&self) -> &[MemoryEntry] {
        &self.entries
    }

    /// The entry `id`.
    pub fn get(&self, id: &str) -> Option<&MemoryEntry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Adds an entry and returns its id. Text already remembered (ignoring case and spacing)
    /// is not added twice: the existing entry's id comes back. Empty text is an error.
    pub fn add(&mut self, kind: MemoryKind, text: &str, now_ms: u64, task_id: Option<&str>) -> Result<String> {
        let text = clean(text)?;
        Ok(self.push(kind, &text, now_ms, task_id.map(str::to_string)))
    }

    /// Replaces entry `id`'s text and kind.
    pub fn edit(&mut self, id: &str, kind: MemoryKind, text: &str) -> Result<()> {
        let text = clean(text)?;
        let entry = self.entries.iter_mut().find(|e| e.id == id).ok_or_else(|| not_found(id))?;
        entry.kind = kind;
        entry.text = text;
        Ok(())
    }

    /// Removes entry `id`.
    pub fn delete(&mut self, id: &str) -> Result<MemoryEntry> {
        let at = self.entries.iter().position(|e| e.id == id).ok_or_else(|| not_found(id))?;
        Ok(self.entries.remove(at))
    }

    /// Removes every entry.
    pub fn forget_all(&mut self) {
        self.entries.clear();
    }

    /// Writes the store, whole, then removes the legacy file, whose facts it now holds.
    pub async fn save(&mut self, vault: &dyn Vault) -> Result<()> {
        let file = StoreFile { version: VERSION, entries: self.entries.clone() };
        json_file::save(vault, MEMORY_FILE, &file).await?;
        if self.legacy {
            let legacy = VaultPath::parse(LEGACY_FILE)?;
            match vault.remove(&legacy).await {
                Err(e) if !e.is_not_found() => return Err(e),
                _ => self.legacy = false,
            }
        }
        Ok(())
    }

    /// Adds `text` unless it is there already; the id either way.
    fn push(&mut self, kind: MemoryKind, text: &str, created_ms: u64, task_id: Option<String>) -> String {
        let key = normalized(text);
        if let Some(same) = self.entries.iter().find(|e| normalized(&e.text) == key) {
            return same.id.clone();
        }
        let next =
            self.entries.iter().filter_map(|e| e.id.strip_prefix('m')?.parse::<u64>().ok()).max().unwrap_or(0) + 1;
        let id = format!("m{next}");
        self.entries.push(MemoryEntry { id: id.clone(), kind, text: text.to_string(), created_ms, task_id });
        id
    }
}

/// `text` on one line, trimmed; an error when empty or too long.
fn clean(text: &str) -> Result<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(Error::Invalid("a memory needs text".into()));
    }
    if text.chars().count() > MAX_CHARS {
        return Err(Error::Invalid(format!("a memory is at most {MAX_CHARS} characters; say it shorter")));
    }
    // Memories go into every later prompt: a key kept here would leave the vault again and again.
    if let Some(kind) = Secrets::find(&text) {
        return Err(Error::Invalid(format!("that looks like a secret ({kind}…); memory never keeps secrets")));
    }
    Ok(text)
}

fn normalized(text: &str) -> String {
    text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

fn not_found(id: &str) -> Error {
    Error::NotFound(format!("no memory {id}"))
}
