//! What the user wrote for the agent in the vault: rules, skills and memory.

use crate::search::Frontmatter;
use crate::vault::{Vault, VaultPath};
use crate::Result;

/// Rules: every `.md` file here is an instruction the agent always follows.
pub const RULES_FOLDER: &str = ".obsidian-agent/rules";
/// Skills: every `.md` file here describes a procedure the agent reads when it needs it.
pub const SKILLS_FOLDER: &str = ".obsidian-agent/skills";
/// Memory: facts the agent saved for later tasks.
pub const MEMORY_FILE: &str = ".obsidian-agent/memory/facts.md";
/// The prompt carries at most this much of the memory file (its end: the newest facts).
pub const MEMORY_CHARS: usize = 4_000;

/// A rule file: its name and text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rule {
    pub name: String,
    pub text: String,
}

/// A skill: listed in the prompt by name and description; the model reads its file when the
/// task calls for it, so a skill costs a line until it is used.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub path: String,
}

/// The vault's instructions for the agent, read once per task.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct VaultInstructions {
    pub rules: Vec<Rule>,
    pub skills: Vec<Skill>,
    /// The newest part of the memory file.
    pub memory: String,
}

impl VaultInstructions {
    /// Reads rules, skills and memory; missing folders and files are empty.
    pub async fn load(vault: &dyn Vault) -> Result<Self> {
        let mut rules = Vec::new();
        for (path, text) in markdown_files(vault, RULES_FOLDER).await? {
            let name = path.stem().unwrap_or("rule").to_string();
            let body = text[Frontmatter::parse(&text).body_start..].trim().to_string();
            if !body.is_empty() {
                rules.push(Rule { name, text: body });
            }
        }
        let mut skills = Vec::new();
        for (path, text) in markdown_files(vault, SKILLS_FOLDER).await? {
            let fm = Frontmatter::parse(&text);
            let first_line = text[fm.body_start..].lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
            skills.push(Skill {
                name: fm.string("name").unwrap_or_else(|| path.stem().unwrap_or("skill").to_string()),
                description: fm
                    .string("description")
                    .unwrap_or_else(|| first_line.trim_start_matches('#').trim().to_string()),
                path: path.to_string(),
            });
        }
        let memory = match vault.read(&VaultPath::parse(MEMORY_FILE)?).await {
            Ok(text) => tail(&text, MEMORY_CHARS),
            Err(e) if e.is_not_found() => String::new(),
            Err(e) => return Err(e),
        };
        Ok(VaultInstructions { rules, skills, memory })
    }
}

/// The `.md` files directly in `folder`, sorted, with their text.
async fn markdown_files(vault: &dyn Vault, folder: &str) -> Result<Vec<(VaultPath, String)>> {
    let listing = match vault.list(&VaultPath::parse(folder)?).await {
        Ok(listing) => listing,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for path in listing.files.into_iter().filter(|p| p.extension() == Some("md")) {
        let text = vault.read(&path).await?;
        out.push((path, text));
    }
    Ok(out)
}

/// The last `max` characters of `text`, starting at a line.
fn tail(text: &str, max: usize) -> String {
    let chars = text.chars().count();
    if chars <= max {
        return text.trim().to_string();
    }
    let cut: String = text.chars().skip(chars - max).collect();
    match cut.find('\n') {
        Some(i) => cut[i + 1..].trim().to_string(),
        None => cut.trim().to_string(),
    }
}
