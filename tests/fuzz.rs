//! A stable-Rust fuzzer for every parser of outside input (`cargo test --test fuzz`).
//!
//! cargo-fuzz needs a nightly toolchain, which cannot be installed here, so this is a small
//! time-boxed mutation fuzzer: each target starts from seed inputs (real fixtures and files the
//! code itself saves), and each round picks an input from its corpus, applies a few byte-level
//! mutations (bit flips, interesting bytes and integers, inserted dictionary tokens, deleted,
//! duplicated and spliced ranges, truncation) and runs the target under `catch_unwind`. It is
//! blind (no coverage feedback); a mutated input joins the corpus now and then, so runs drift
//! away from the seeds. A panic is a crash: its input is saved, and the run fails.
//!
//! Environment:
//! - `FUZZ_SECONDS` — seconds per target (default 2: all targets together stay under 30 s);
//! - `FUZZ_TARGETS` — a comma-separated subset of target names (default: all);
//! - `FUZZ_SEED` — the PRNG seed (default 1; runs are reproducible for a given seed and count);
//! - `FUZZ_CRASH_DIR` — where crashing inputs go (default `target/fuzz-crashes`);
//! - `FUZZ_REPLAY` — a file to run through the targets once, instead of fuzzing.
//!
//! Targets are in `fuzz/targets.rs`; inputs that once crashed one are kept in
//! `tests/fixtures/fuzz/<target>/` and run first every time. RELIABILITY.md records the runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(not(target_arch = "wasm32"))]
#[path = "fuzz/runner.rs"]
mod runner;
#[cfg(not(target_arch = "wasm32"))]
#[path = "fuzz/targets.rs"]
mod targets;

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    runner::main();
}
