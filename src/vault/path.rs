//! The one path normaliser every vault implementation uses.
//!
//! A [`VaultPath`] is a vault-relative, `/`-separated path that cannot escape the vault and
//! cannot mean two different files on two different hosts. It can only be made by
//! [`VaultPath::parse`], so holding one is proof that the path was checked.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::PathProblem;
use crate::{Error, Result};

/// Longest accepted segment, in UTF-8 bytes (the common file-system limit).
const MAX_SEGMENT_BYTES: usize = 255;
/// Longest accepted path, in UTF-8 bytes.
const MAX_PATH_BYTES: usize = 4096;

/// A checked, vault-relative path. The empty path is the vault root ([`VaultPath::root`]).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VaultPath(String);

impl VaultPath {
    /// The vault root. It is the only `VaultPath` with no segments.
    pub fn root() -> Self {
        VaultPath(String::new())
    }

    /// Checks `raw` and returns it as a vault path, or an [`Error::InvalidPath`] naming the
    /// path and the rule it breaks. Nothing is rewritten: a path is either accepted as it is
    /// or refused, so the caller never acts on a path other than the one it named.
    pub fn parse(raw: &str) -> Result<Self> {
        check(raw).map_err(|problem| Error::InvalidPath { path: raw.to_string(), problem })?;
        Ok(VaultPath(raw.to_string()))
    }

    /// The path as a `/`-separated string; empty for the root.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the vault root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The segments from the root down; none for the root.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// The last segment; `None` for the root.
    pub fn name(&self) -> Option<&str> {
        if self.is_root() {
            None
        } else {
            self.0.rsplit('/').next()
        }
    }

    /// The name without its last extension (`"a.b.md"` → `"a.b"`).
    pub fn stem(&self) -> Option<&str> {
        let name = self.name()?;
        match name.rfind('.') {
            Some(0) | None => Some(name),
            Some(i) => Some(&name[..i]),
        }
    }

    /// The last extension, without the dot, if the name has one (`"a.md"` → `"md"`).
    pub fn extension(&self) -> Option<&str> {
        let name = self.name()?;
        match name.rfind('.') {
            Some(0) | None => None,
            Some(i) => Some(&name[i + 1..]),
        }
    }

    /// The containing folder; `None` for the root. A top-level entry's parent is the root.
    pub fn parent(&self) -> Option<VaultPath> {
        if self.is_root() {
            return None;
        }
        Some(match self.0.rfind('/') {
            Some(i) => VaultPath(self.0[..i].to_string()),
            None => VaultPath::root(),
        })
    }

    /// This path with `relative` (itself checked by [`VaultPath::parse`]) appended.
    pub fn join(&self, relative: &str) -> Result<VaultPath> {
        let tail = VaultPath::parse(relative)?;
        if self.is_root() {
            return Ok(tail);
        }
        let joined = format!("{}/{}", self.0, tail.0);
        VaultPath::parse(&joined)
    }

    /// Whether `self` is `ancestor` or lies inside it. Every path lies inside the root.
    pub fn starts_with(&self, ancestor: &VaultPath) -> bool {
        ancestor.is_root()
            || self.0 == ancestor.0
            || (self.0.starts_with(&ancestor.0) && self.0.as_bytes().get(ancestor.0.len()) == Some(&b'/'))
    }

    /// `self` re-rooted from `from` to `to` (for renames of folders); `None` if `self` is not
    /// inside `from`.
    pub fn rebase(&self, from: &VaultPath, to: &VaultPath) -> Option<VaultPath> {
        if !self.starts_with(from) {
            return None;
        }
        let rest = self.0[from.0.len()..].trim_start_matches('/');
        if rest.is_empty() {
            return Some(to.clone());
        }
        if to.is_root() {
            return Some(VaultPath(rest.to_string()));
        }
        Some(VaultPath(format!("{}/{}", to.0, rest)))
    }

    /// Every ancestor folder from the top down, excluding the root and `self`.
    pub fn ancestors(&self) -> Vec<VaultPath> {
        let mut out = Vec::new();
        let mut current = self.parent();
        while let Some(p) = current {
            if p.is_root() {
                break;
            }
            current = p.parent();
            out.push(p);
        }
        out.reverse();
        out
    }
}

fn check(raw: &str) -> std::result::Result<(), PathProblem> {
    if raw.is_empty() {
        return Err(PathProblem::Empty);
    }
    if raw.len() > MAX_PATH_BYTES {
        return Err(PathProblem::TooLong);
    }
    // Order matters only for the message: the most telling problem is reported first.
    if raw.contains('\\') {
        return Err(PathProblem::Backslash);
    }
    if raw.starts_with('/') {
        return Err(PathProblem::Absolute);
    }
    if raw.contains(':') {
        return Err(PathProblem::DriveOrColon);
    }
    for c in raw.chars() {
        if c.is_control() {
            return Err(PathProblem::ControlCharacter);
        }
        if is_lookalike_separator(c) {
            return Err(PathProblem::LookalikeSeparator);
        }
        if is_invisible_override(c) {
            return Err(PathProblem::InvisibleCharacter);
        }
    }
    for segment in raw.split('/') {
        check_segment(segment)?;
    }
    Ok(())
}

fn check_segment(segment: &str) -> std::result::Result<(), PathProblem> {
    match segment {
        "" => return Err(PathProblem::EmptySegment),
        "." => return Err(PathProblem::DotSegment),
        ".." => return Err(PathProblem::ParentSegment),
        "~" => return Err(PathProblem::HomeSegment),
        _ => {}
    }
    if segment.len() > MAX_SEGMENT_BYTES {
        return Err(PathProblem::TooLong);
    }
    if segment.ends_with('.') || segment.ends_with(' ') {
        // Also catches "...": Windows would read it as "..".
        return Err(PathProblem::TrailingDotOrSpace);
    }
    let lower = segment.to_ascii_lowercase();
    if lower.contains("%2e") || lower.contains("%2f") || lower.contains("%5c") {
        return Err(PathProblem::EncodedDot);
    }
    if is_reserved_device_name(&lower) {
        return Err(PathProblem::ReservedName);
    }
    Ok(())
}

/// Characters that render like `/` or `.` and that some hosts fold into them.
fn is_lookalike_separator(c: char) -> bool {
    matches!(
        c,
        '\u{FF0F}' // FULLWIDTH SOLIDUS
            | '\u{2215}' // DIVISION SLASH
            | '\u{2044}' // FRACTION SLASH
            | '\u{29F8}' // BIG SOLIDUS
            | '\u{FF3C}' // FULLWIDTH REVERSE SOLIDUS
            | '\u{FE68}' // SMALL REVERSE SOLIDUS
            | '\u{FF0E}' // FULLWIDTH FULL STOP
            | '\u{2024}' // ONE DOT LEADER
            | '\u{2025}' // TWO DOT LEADER
            | '\u{FE52}' // SMALL FULL STOP
    )
}

/// Bidirectional overrides and the byte-order mark: they make a path display as another.
/// Zero-width joiners stay allowed: emoji sequences need them.
fn is_invisible_override(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{200E}' | '\u{200F}')
}

/// Windows device names, with or without an extension (`nul.md` is still NUL there).
fn is_reserved_device_name(lower: &str) -> bool {
    let base = lower.split('.').next().unwrap_or(lower);
    matches!(base, "con" | "prn" | "aux" | "nul")
        || ((base.starts_with("com") || base.starts_with("lpt"))
            && base.len() == 4
            && base.as_bytes()[3].is_ascii_digit()
            && base.as_bytes()[3] != b'0')
}

impl fmt::Display for VaultPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_root() {
            f.write_str("/")
        } else {
            f.write_str(&self.0)
        }
    }
}

impl fmt::Debug for VaultPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VaultPath({:?})", self.0)
    }
}

impl AsRef<str> for VaultPath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<&str> for VaultPath {
    type Error = Error;
    fn try_from(value: &str) -> Result<Self> {
        VaultPath::parse(value)
    }
}

impl Serialize for VaultPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for VaultPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        if raw.is_empty() {
            return Ok(VaultPath::root());
        }
        VaultPath::parse(&raw).map_err(serde::de::Error::custom)
    }
}

/// In a tool's arguments a path is a string; the sandbox checks it when it is parsed.
impl schemars::JsonSchema for VaultPath {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "VaultPath".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
#[path = "path_tests.rs"]
mod tests;
