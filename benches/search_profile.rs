//! One pass of one search workload, for profilers (`valgrind --tool=callgrind`, `perf`): on a
//! shared machine, instruction counts compare two versions where wall times cannot.
//!
//! ```sh
//! node bench/corpus.mjs                                   # the corpora, once
//! CARGO_PROFILE_BENCH_DEBUG=line-tables-only cargo bench --bench search_profile --no-run
//! valgrind --tool=callgrind target/release/deps/search_profile-* build real
//! ```
//!
//! Workloads: `build` (a full build through a vault), `query` (every benchmark query, ranking
//! only), `snippets` (every query with snippets), each over `real` or `gen50k`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::time::Instant;

    use futures::executor::block_on;
    use vault_agent::host::ManualClock;
    use vault_agent::search::{SearchIndex, SearchQuery};
    use vault_agent::vault::{MemoryVault, Vault, VaultPath};

    fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench")
    }

    pub fn main() {
        let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
        let workload = args.first().map(String::as_str).unwrap_or("build");
        let corpus = args.get(1).map(String::as_str).unwrap_or("real");

        #[derive(serde::Deserialize)]
        struct Bundle {
            files: BTreeMap<String, String>,
        }
        let Ok(bytes) = std::fs::read(dir().join(format!("{corpus}.json"))) else {
            // `cargo test --all-targets` runs this too; without a corpus there is nothing to profile.
            eprintln!("no corpus {corpus}: run node bench/corpus.mjs first");
            return;
        };
        let bundle: Bundle = serde_json::from_slice(&bytes).unwrap();
        let queries: Vec<String> =
            serde_json::from_slice(&std::fs::read(dir().join(format!("queries-{corpus}.json"))).unwrap()).unwrap();
        let vault = MemoryVault::new();
        block_on(async {
            for (path, text) in &bundle.files {
                vault.write(&VaultPath::parse(path).unwrap(), text).await.unwrap();
            }
        });
        drop(bundle);

        let clock = ManualClock::new(0);
        let start = Instant::now();
        let index = block_on(SearchIndex::build(&vault, &clock, &mut |_| {})).unwrap();
        let built = start.elapsed();
        let start = Instant::now();
        let mut hits = 0;
        if workload != "build" {
            let snippets = workload == "snippets";
            for q in &queries {
                let request = SearchQuery { text: q.clone(), limit: 10, snippets, ..SearchQuery::default() };
                hits += index.search(&request).unwrap().len();
            }
        }
        eprintln!(
            "{workload} {corpus}: {} notes, build {:.0} ms, {} queries {:.1} ms, {hits} hits",
            index.note_count(),
            built.as_secs_f64() * 1e3,
            queries.len(),
            start.elapsed().as_secs_f64() * 1e3
        );
    }
}
