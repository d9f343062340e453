//! The memory folder's files: each read whole and written whole through the vault (a failed
//! write leaves the file as it was). A file that does not parse is an error, so a later save
//! never overwrites what could not be read.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::vault::{Vault, VaultPath};
use crate::{Error, Result};

/// The file at `path` parsed, `None` when it is missing; an error naming it as `what` when it
/// does not parse.
pub(super) async fn load<T: DeserializeOwned>(vault: &dyn Vault, path: &str, what: &str) -> Result<Option<T>> {
    let Some(text) = read_optional(vault, path).await? else { return Ok(None) };
    serde_json::from_str(&text).map(Some).map_err(|e| Error::Invalid(format!("{path} is not {what}: {e}")))
}

/// Writes `value` to `path`, whole.
pub(super) async fn save<T: Serialize>(vault: &dyn Vault, path: &str, value: &T) -> Result<()> {
    let json = serde_json::to_string_pretty(value).map_err(|e| Error::Invalid(e.to_string()))?;
    vault.write(&VaultPath::parse(path)?, &json).await
}

/// The text at `path`, `None` when it is missing.
pub(super) async fn read_optional(vault: &dyn Vault, path: &str) -> Result<Option<String>> {
    match vault.read(&VaultPath::parse(path)?).await {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}
