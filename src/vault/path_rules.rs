//! Which vault paths the agent may not see (`.obsidian-agentignore`) or may not change
//! (`.obsidian-agentprotected`).

use super::{Glob, Vault, VaultPath};
use crate::Result;

/// The user's list of paths the agent must not see.
pub const IGNORE_FILE: &str = ".obsidian-agentignore";
/// The user's list of paths the agent may read but not change.
pub const PROTECT_FILE: &str = ".obsidian-agentprotected";

/// Always invisible: Obsidian's configuration, the trash and version control.
const BUILTIN_IGNORED: &[&str] = &[".obsidian/", ".trash/", ".git/"];
/// Always read-only: the agent's own state and the rule files themselves.
const BUILTIN_PROTECTED: &[&str] = &[".obsidian-agent/", IGNORE_FILE, PROTECT_FILE];

/// Ignore and protect lists, in gitignore-like syntax: one glob per line, `#` comments, `*`
/// within a name, `**` across folders. A pattern without `/` matches a name at any depth
/// (`*.pdf`, `Private`); a leading `/` anchors it at the vault root; a trailing `/` matches a
/// folder. A folder that matches covers everything below it.
#[derive(Debug, Clone)]
pub struct PathRules {
    ignored: Vec<Glob>,
    protected: Vec<Glob>,
    /// Lines that could not be used, with the reason, for the user to fix.
    pub warnings: Vec<String>,
}

impl Default for PathRules {
    fn default() -> Self {
        Self::from_lists("", "")
    }
}

impl PathRules {
    /// The built-in rules plus the given lists (the contents of the two rule files).
    /// A line that cannot be used becomes a warning, never an error.
    pub fn from_lists(ignore: &str, protect: &str) -> Self {
        let mut warnings = Vec::new();
        let ignored = compile(BUILTIN_IGNORED.iter().copied().chain(ignore.lines()), IGNORE_FILE, &mut warnings);
        let protected = compile(BUILTIN_PROTECTED.iter().copied().chain(protect.lines()), PROTECT_FILE, &mut warnings);
        PathRules { ignored, protected, warnings }
    }

    /// Reads the rule files from the vault root (missing files are empty lists).
    pub async fn load(vault: &dyn Vault) -> Result<Self> {
        let read = |name: &'static str| async move {
            match vault.read(&VaultPath::parse(name)?).await {
                Ok(text) => Ok(text),
                Err(e) if e.is_not_found() => Ok(String::new()),
                Err(e) => Err(e),
            }
        };
        Ok(Self::from_lists(&read(IGNORE_FILE).await?, &read(PROTECT_FILE).await?))
    }

    /// Whether the agent must act as if `path` did not exist.
    pub fn is_ignored(&self, path: &VaultPath) -> bool {
        covers(&self.ignored, path)
    }

    /// Whether the agent sees `path` when it lists or searches: not hidden
    /// ([`is_hidden`](super::is_hidden)) and not ignored.
    pub fn is_visible(&self, path: &VaultPath) -> bool {
        !super::is_hidden(path) && !self.is_ignored(path)
    }

    /// Whether the agent must not change `path`.
    pub fn is_protected(&self, path: &VaultPath) -> bool {
        covers(&self.protected, path)
    }
}

/// Whether `path` or one of its folders matches.
fn covers(set: &[Glob], path: &VaultPath) -> bool {
    if path.is_root() {
        return false;
    }
    let matched = |p: &str| Glob::any_match(set, p);
    matched(path.as_str()) || path.ancestors().iter().any(|a| !a.is_root() && matched(a.as_str()))
}

fn compile<'a>(lines: impl Iterator<Item = &'a str>, file: &str, warnings: &mut Vec<String>) -> Vec<Glob> {
    let mut globs = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('!') {
            warnings.push(format!("{file}: negated patterns are not supported: {line}"));
            continue;
        }
        let anchored = line.starts_with('/');
        let body = line.trim_start_matches('/').trim_end_matches('/');
        if body.is_empty() {
            continue;
        }
        let pattern = if anchored || body.contains('/') { body.to_string() } else { format!("**/{body}") };
        match Glob::new(&pattern) {
            Ok(glob) => globs.push(glob),
            Err(e) => warnings.push(format!("{file}: bad pattern {line:?}: {e}")),
        }
    }
    globs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(raw: &str) -> VaultPath {
        VaultPath::parse(raw).unwrap()
    }

    #[test]
    fn builtin_rules_hide_config_and_protect_agent_state() {
        let rules = PathRules::default();
        assert!(rules.is_ignored(&p(".obsidian/workspace.json")));
        assert!(rules.is_ignored(&p(".trash/old.md")));
        assert!(!rules.is_ignored(&p("Notes/.obsidian-like.md")));
        assert!(rules.is_protected(&p(".obsidian-agent/checkpoints/t/manifest.json")));
        assert!(rules.is_protected(&p(".obsidian-agentignore")));
        assert!(!rules.is_protected(&p("Notes/a.md")));
        assert!(!rules.is_ignored(&VaultPath::root()));
    }

    #[test]
    fn user_patterns_follow_gitignore_conventions() {
        let rules = PathRules::from_lists(
            "# private things\nPrivate/\n*.pdf\n/Top.md\nJournal/**/draft-*.md\n!keep.md\n",
            "Archive\n",
        );
        assert!(rules.is_ignored(&p("Private/diary.md")));
        assert!(rules.is_ignored(&p("Work/Private/x.md")), "unanchored names match at any depth");
        assert!(rules.is_ignored(&p("a/b/c.pdf")));
        assert!(rules.is_ignored(&p("Top.md")));
        assert!(!rules.is_ignored(&p("Sub/Top.md")), "a leading / anchors at the root");
        assert!(rules.is_ignored(&p("Journal/2024/01/draft-1.md")));
        assert!(!rules.is_ignored(&p("Journal/2024/01/final.md")));
        assert!(!rules.is_ignored(&p("Privately.md")));
        assert!(rules.is_protected(&p("Archive/2020/old.md")));
        assert!(!rules.is_protected(&p("Archived.md")));
        assert_eq!(rules.warnings.len(), 1, "{:?}", rules.warnings);
        assert!(rules.warnings[0].contains("negated"));
    }
}
