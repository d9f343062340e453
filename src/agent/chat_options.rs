//! What a chat is made from, as the plugin sends it.

use serde::Deserialize;
use ts_rs::TS;

use super::{AgentConfig, Mode};
use crate::host::Transport;
use crate::prompt::VaultInfo;
use crate::provider::ProviderConfig;

/// What the plugin's `VaultCore.newChat` takes: the provider, and optionally the agent's
/// settings, the vault, the user's modes, the transport and the saved chat to continue (each
/// left out takes its default; without a chat id, the chat is saved as a new one).
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatOptions {
    pub provider: ProviderConfig,
    #[serde(default)]
    pub agent: AgentConfig,
    #[serde(default)]
    pub vault: VaultInfo,
    /// The user's own modes; `agent.mode` may name one of them.
    #[serde(default)]
    pub modes: Vec<Mode>,
    /// How model requests travel (`auto`, `fetch`, `request`).
    #[serde(default)]
    pub transport: Transport,
    /// The saved chat this continues: the core reads its history and saves it after every task.
    #[serde(default)]
    pub chat_id: Option<String>,
    /// MCP servers whose tools the chat's tasks offer (the enabled ones, with their tokens).
    #[serde(default)]
    pub mcp_servers: Vec<crate::mcp::McpServerConfig>,
    /// The vault's folder on disk, where there is one (desktop): told to MCP servers on this
    /// machine as the folder they may work in (MCP's roots).
    #[serde(default)]
    pub vault_path: Option<String>,
}

impl ChatOptions {
    /// What the chat's MCP sessions offer their servers: the task's model (sampling, each
    /// request approved by the user) and the vault's folder as a root.
    pub fn mcp_offer(&self) -> crate::mcp::ClientOffer {
        crate::mcp::ClientOffer::for_chat(self.vault_path.as_deref())
    }
}
