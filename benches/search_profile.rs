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
//! only), `snippets` (every query with snippets), `typed` (what `bench/ui.mjs` types into the
//! search modal, a key at a time, as the modal asks: 30 hits with snippets, each text's time
//! printed), each over `real` or `gen50k`.
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
        if workload == "typed" {
            hits += typed(&index);
        } else if workload != "build" {
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

    /// The search modal's texts (`bench/ui.mjs`), each prefix asked three times; prints the
    /// median time of each, with and without snippets, and returns the hits counted.
    fn typed(index: &SearchIndex) -> usize {
        const TYPED: [&str; 8] = [
            "canvas",
            "internal links",
            "daily notes",
            "sync settings",
            "how do I publish a site",
            "graph vew",
            "templates",
            "embed files",
        ];
        let mut hits = 0;
        let mut all = Vec::new();
        for text in TYPED {
            for end in text.char_indices().map(|(i, c)| i + c.len_utf8()) {
                let prefix = &text[..end];
                let mut time = |snippets: bool| {
                    let request = SearchQuery {
                        text: prefix.to_string(),
                        limit: 30,
                        snippets,
                        language: Some("en".into()),
                        ..SearchQuery::default()
                    };
                    let mut runs: Vec<f64> = (0..3)
                        .map(|_| {
                            let start = Instant::now();
                            hits += index.search(&request).unwrap().len();
                            start.elapsed().as_secs_f64() * 1e3
                        })
                        .collect();
                    runs.sort_by(f64::total_cmp);
                    runs[1]
                };
                let (with, without) = (time(true), time(false));
                eprintln!("{prefix:<26} {with:>7.2} ms {without:>7.2} ms ranking only");
                all.push(with);
            }
        }
        all.sort_by(f64::total_cmp);
        eprintln!("p50 {:.2} ms, p90 {:.2} ms", all[all.len() / 2], all[all.len() * 9 / 10]);
        hits
    }
}
