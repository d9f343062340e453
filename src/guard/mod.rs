//! Defences against prompt injection: what a note, a web page or an MCP result says must not
//! become what the agent does.
//!
//! - `untrusted`: tool results the user did not write this turn reach the model wrapped as
//!   data, between per-task random markers the prompt names as never carrying instructions.
//! - [`Guardrail`]s check the user's input, every tool call before it is approved, and the
//!   final answer; a block ends the task with `EndReason::Guardrail`. Built in: the
//!   [`Canary`] (a per-task token in the system prompt that must never leave), [`Secrets`]
//!   (API keys and tokens in what a call would send out), and a [`WriteRate`] tripwire.
//! - [`Screener`] (optional): a model reads web and MCP results for injected instructions
//!   before the main model does; a flagged result is withheld.

mod canary;
mod guardrail;
mod random;
mod screen;
mod secrets;
mod untrusted;
mod write_rate;

pub use canary::Canary;
pub use guardrail::{GuardedCall, Guardrail, Guardrails, Verdict};
pub use random::random_hex;
pub use screen::{withheld, ModelScreener, Screener};
pub use secrets::Secrets;
pub use untrusted::{DataMarkers, UNTRUSTED_RULE};
pub use write_rate::WriteRate;
