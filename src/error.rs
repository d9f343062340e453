//! The crate's one error type.
//!
//! Every fallible core API returns [`crate::Result`]. Variants name the failing path or
//! operation so that a message shown to a user (or sent back to the model) says what went
//! wrong without a backtrace.

use std::fmt;

/// Why a vault path was refused by [`crate::vault::VaultPath::parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathProblem {
    Empty,
    Absolute,
    DriveOrColon,
    Backslash,
    ControlCharacter,
    EmptySegment,
    DotSegment,
    ParentSegment,
    HomeSegment,
    TrailingDotOrSpace,
    LookalikeSeparator,
    InvisibleCharacter,
    EncodedDot,
    ReservedName,
    TooLong,
}

impl fmt::Display for PathProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            PathProblem::Empty => "the path is empty",
            PathProblem::Absolute => "absolute paths are not allowed; use a path relative to the vault root",
            PathProblem::DriveOrColon => "':' is not allowed (drive letters, URLs and alternate streams)",
            PathProblem::Backslash => "'\\' is not allowed; separate folders with '/'",
            PathProblem::ControlCharacter => "control characters (including NUL, tab and newline) are not allowed",
            PathProblem::EmptySegment => "empty segments ('//' or a trailing '/') are not allowed",
            PathProblem::DotSegment => "'.' segments are not allowed",
            PathProblem::ParentSegment => "'..' segments are not allowed: a path may not leave the vault",
            PathProblem::HomeSegment => "'~' is not allowed as a folder name: it means the home folder to some tools",
            PathProblem::TrailingDotOrSpace => "a name may not end with '.' or ' ' (Windows drops them, which makes two paths the same file)",
            PathProblem::LookalikeSeparator => "characters that look like '/' or '.' (fullwidth, division or fraction slashes, dot leaders) are not allowed",
            PathProblem::InvisibleCharacter => "invisible direction-override or byte-order-mark characters are not allowed",
            PathProblem::EncodedDot => "percent-encoded '.' or '/' is not allowed",
            PathProblem::ReservedName => "reserved device names (CON, NUL, COM1, …) are not allowed",
            PathProblem::TooLong => "the path is too long (a name may have at most 255 bytes, a path 4096)",
        };
        f.write_str(text)
    }
}

/// The crate's error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A path that escapes the vault or is ambiguous.
    #[error("invalid vault path {path:?}: {problem}")]
    InvalidPath { path: String, problem: PathProblem },

    /// The file or folder does not exist.
    #[error("not found: {0}")]
    NotFound(String),

    /// The destination already exists (create, rename).
    #[error("already exists: {0}")]
    AlreadyExists(String),

    /// A file was expected but the path is a folder.
    #[error("is a folder, not a file: {0}")]
    IsAFolder(String),

    /// A folder was expected but the path (or one of its parents) is a file.
    #[error("is a file, not a folder: {0}")]
    NotAFolder(String),

    /// A file's bytes are not UTF-8 text.
    #[error("not a text file (invalid UTF-8): {0}")]
    NotText(String),

    /// An operating-system I/O failure (native hosts).
    #[error("{op} {path}: {message}")]
    Io { op: &'static str, path: String, message: String },

    /// The JS host rejected a call; `message` carries the JS error's message.
    #[error("host {op} failed: {message}")]
    Host { op: String, message: String },

    /// An HTTP transport failure (no status received, or the body stream broke).
    #[error("network error: {0}")]
    Network(String),

    /// The operation was cancelled.
    #[error("cancelled")]
    Cancelled,

    /// Bad input that is not a path: arguments, configuration, serialized data.
    #[error("invalid input: {0}")]
    Invalid(String),

    /// A task ended without the answer it was asked for; the text names why, as
    /// [`crate::protocol::EndReason::describe`] does ("Stopped: the model repeated the same
    /// calls"). Not an input error: nothing the caller passed was wrong.
    #[error("{0}")]
    Stopped(String),

    /// An MCP server failed or broke the protocol; the text names the server when known.
    #[error("MCP: {0}")]
    Mcp(String),

    /// An MCP server asks the user to sign in (OAuth), or to sign in again: the host can offer
    /// the sign-in.
    #[error("MCP: {0}")]
    McpSignIn(String),

    /// A model call failed; the error says how (rate limit, context overflow, auth, …).
    #[error("model call failed: {0}")]
    Provider(#[from] crate::protocol::ProviderError),
}

/// `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the error means "the thing is not there", whatever layer reported it.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound(_))
    }
}
