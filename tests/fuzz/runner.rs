//! The fuzzing loop: corpus, mutations, panics caught and saved. See `tests/fuzz.rs`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::targets::{self, Target};

/// A xorshift64* generator: small, fast and reproducible.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING_BYTES: &[u8] =
    &[0, 1, 0x7f, 0x80, 0xff, b'"', b'\\', b'{', b'}', b'[', b']', b'\n', b'\r', b':', b',', b' ', b'-', b'0', b'9'];
const INTERESTING_INTS: &[u64] =
    &[0, 1, 2, 0x7f, 0xff, 0x7fff_ffff, 0xffff_ffff, 0x1_0000_0000, u64::MAX, u64::MAX / 2];

/// Applies one to eight random mutations to `input`.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>, dictionary: &[&[u8]], corpus: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(8) {
        let len = input.len();
        match rng.below(11) {
            0 if len > 0 => {
                let at = rng.below(len);
                input[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                input[at] = INTERESTING_BYTES[rng.below(INTERESTING_BYTES.len())];
            }
            2 if len > 0 => {
                let at = rng.below(len);
                input[at] = rng.next() as u8;
            }
            3 if !dictionary.is_empty() => {
                let token = dictionary[rng.below(dictionary.len())];
                let at = rng.below(len + 1);
                input.splice(at..at, token.iter().copied());
            }
            4 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(16.min(len - start))).min(len);
                input.drain(start..end);
            }
            5 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64)).min(len);
                let copy = input[start..end].to_vec();
                let at = rng.below(len + 1);
                input.splice(at..at, copy);
            }
            6 if len > 0 => input.truncate(rng.below(len)),
            7 if len >= 4 => {
                // A little-endian integer (u32 or u64) overwritten with an interesting value:
                // the binary loaders' lengths and counts.
                let value = INTERESTING_INTS[rng.below(INTERESTING_INTS.len())];
                let width = if rng.below(2) == 0 || len < 8 { 4 } else { 8 };
                let at = rng.below(len - width + 1);
                input[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            }
            8 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let end = (start + 1 + rng.below(256)).min(other.len());
                    let at = rng.below(len + 1);
                    input.splice(at..at, other[start..end].iter().copied());
                }
            }
            9 => {
                let at = rng.below(len + 1);
                let bytes: Vec<u8> = (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
                input.splice(at..at, bytes);
            }
            _ if len > 1 => {
                // Swap two ranges' order: reorders fields and events.
                let a = rng.below(len);
                let b = rng.below(len);
                input.swap(a, b);
            }
            _ => input.push(rng.next() as u8),
        }
    }
    // Keep inputs bounded so a run does not drift into huge buffers.
    input.truncate(1 << 20);
}

/// What one target's run found.
struct Outcome {
    executions: u64,
    wall: Duration,
    crashes: Vec<(PathBuf, String)>,
}

fn crash_dir() -> PathBuf {
    std::env::var_os("FUZZ_CRASH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-crashes"))
}

/// The inputs that once crashed `target` (`tests/fixtures/fuzz/<target>/`), kept as seeds so
/// every run, the brief one in CI included, checks them again.
fn regressions(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz").join(target);
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files.into_iter().map(|f| std::fs::read(f).unwrap()).collect()
}

/// Runs `input` through `target`, turning a panic into its message.
fn run_one(target: &Target, input: &[u8], last_panic: &Mutex<String>) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| (target.run)(input))).map_err(|_| last_panic.lock().unwrap().clone())
}

fn fuzz(target: &Target, seconds: f64, seed: u64, last_panic: &Mutex<String>) -> Outcome {
    let started = Instant::now();
    let budget = Duration::from_secs_f64(seconds);
    let mut rng = Rng::new(seed ^ xxhash_rust::xxh3::xxh3_64(target.name.as_bytes()));
    let mut corpus: Vec<Vec<u8>> = (target.seeds)();
    corpus.extend(regressions(target.name));
    let seeds = corpus.len();
    let mut crashes = Vec::new();
    let mut executions = 0u64;
    let mut seen_messages = std::collections::BTreeSet::new();
    let mut record = |input: &[u8], message: String, crashes: &mut Vec<(PathBuf, String)>| {
        // One saved input per distinct panic message (its location is in it).
        if seen_messages.insert(message.clone()) {
            let dir = crash_dir();
            std::fs::create_dir_all(&dir).unwrap();
            let hash = xxhash_rust::xxh3::xxh3_64(input);
            let path = dir.join(format!("{}-{hash:016x}.bin", target.name));
            std::fs::write(&path, input).unwrap();
            eprintln!("CRASH in {}: {message}\n  input saved to {}", target.name, path.display());
            crashes.push((path, message));
        }
    };
    for input in corpus.clone() {
        executions += 1;
        if let Err(message) = run_one(target, &input, last_panic) {
            record(&input, message, &mut crashes);
        }
    }
    while started.elapsed() < budget {
        // A batch between clock reads: the clock is not free.
        for _ in 0..16 {
            let mut input = corpus[rng.below(corpus.len())].clone();
            mutate(&mut rng, &mut input, target.dictionary, &corpus);
            executions += 1;
            match run_one(target, &input, last_panic) {
                Err(message) => record(&input, message, &mut crashes),
                // Drift: now and then a survivor becomes a parent, in a bounded corpus whose
                // seeds stay.
                Ok(()) if rng.below(32) == 0 => {
                    if corpus.len() < seeds + 256 {
                        corpus.push(input);
                    } else {
                        let at = seeds + rng.below(256);
                        corpus[at] = input;
                    }
                }
                Ok(()) => {}
            }
        }
    }
    Outcome { executions, wall: started.elapsed(), crashes }
}

pub fn main() {
    // `cargo test` passes harness flags (`--nocapture`, filters): this runner takes its
    // settings from the environment instead, and ignores them.
    let seconds: f64 = std::env::var("FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let seed: u64 = std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let wanted: Option<Vec<String>> =
        std::env::var("FUZZ_TARGETS").ok().map(|s| s.split(',').map(|t| t.trim().to_string()).collect());
    let all = targets::all();
    if let Some(wanted) = &wanted {
        let unknown: Vec<&String> = wanted.iter().filter(|w| !all.iter().any(|t| &t.name == w)).collect();
        assert!(
            unknown.is_empty(),
            "unknown fuzz targets {unknown:?}; known: {:?}",
            all.iter().map(|t| t.name).collect::<Vec<_>>()
        );
    }
    let chosen: Vec<&Target> =
        all.iter().filter(|t| wanted.as_ref().is_none_or(|w| w.iter().any(|n| n == t.name))).collect();

    // Panics are expected to be caught: keep their message, print nothing.
    let last_panic = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&last_panic);
    std::panic::set_hook(Box::new(move |info| {
        let location = info.location().map(|l| format!(" at {l}")).unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *sink.lock().unwrap() = format!("{payload}{location}");
    }));

    if let Some(file) = std::env::var_os("FUZZ_REPLAY") {
        let input = std::fs::read(&file).unwrap();
        let mut failed = false;
        for target in chosen {
            match run_one(target, &input, &last_panic) {
                Ok(()) => println!("{}: ok", target.name),
                Err(message) => {
                    println!("{}: PANIC {message}", target.name);
                    failed = true;
                }
            }
        }
        std::process::exit(i32::from(failed));
    }

    println!("fuzzing {} target(s), {seconds} s each, seed {seed}", chosen.len());
    println!("{:<14} {:>9} {:>12} {:>10} {:>8}", "target", "wall s", "executions", "exec/s", "crashes");
    let mut failed = false;
    for target in chosen {
        let outcome = fuzz(target, seconds, seed, &last_panic);
        let wall = outcome.wall.as_secs_f64();
        println!(
            "{:<14} {:>9.1} {:>12} {:>10.0} {:>8}",
            target.name,
            wall,
            outcome.executions,
            outcome.executions as f64 / wall.max(1e-9),
            outcome.crashes.len()
        );
        for (path, message) in &outcome.crashes {
            println!("  crash: {message}\n    input: {}", path.display());
        }
        failed |= !outcome.crashes.is_empty();
    }
    if failed {
        println!("fuzzing found panics; replay one with FUZZ_REPLAY=<input> FUZZ_TARGETS=<target>");
        std::process::exit(1);
    }
}
