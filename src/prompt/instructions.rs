//! What the user wrote for the agent in the vault: rules and skills; the memories the agent
//! saved, which the task fills in; what the chat's MCP servers say about their use.

use super::PeriodicNotes;
use crate::search::Frontmatter;
use crate::vault::{Vault, VaultPath};
use crate::Result;

/// Rules: every `.md` file here is an instruction the agent always follows.
pub const RULES_FOLDER: &str = ".obsidian-agent/rules";
/// Skills: every `.md` file here describes a procedure the agent reads when it needs it.
pub const SKILLS_FOLDER: &str = ".obsidian-agent/skills";

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
    /// The memories relevant to the task's request, as prompt lines ([`crate::memory::recall`]);
    /// filled in when the task starts, since they depend on the request.
    pub memory: String,
    /// What the connected MCP servers say about their use (their `instructions`), by server
    /// name; filled in by the conversation that connects them.
    pub servers: Vec<(String, String)>,
    /// Where the user's daily, weekly and monthly notes are, when a plugin keeps them.
    pub periodic_notes: Option<PeriodicNotes>,
}

impl VaultInstructions {
    /// Reads rules and skills (missing folders and files are empty) and, in Obsidian's settings
    /// folder `config_dir`, where the daily, weekly and monthly notes are. Memory is left empty.
    pub async fn load(vault: &dyn Vault, config_dir: &str) -> Result<Self> {
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
        let periodic_notes = PeriodicNotes::load(vault, config_dir).await;
        Ok(VaultInstructions { rules, skills, memory: String::new(), servers: Vec::new(), periodic_notes })
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
