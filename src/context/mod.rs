//! What fits in the model's window: the token estimate (more — condensing — comes later).

pub mod tokens;

pub use tokens::{estimate_request, TokenEstimator};
