//! `regex`'s API for the expressions tantivy compiles, served by `regex-lite` (see Cargo.toml).
pub use regex_lite::*;
