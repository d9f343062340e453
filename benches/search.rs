//! Native search benchmarks: full build, query latency (p50/p99 over 210 queries), one-note
//! update, persisted load, over the sample vault and a generated 50,000-note vault.
//!
//! The corpora and queries come from `node bench/corpus.mjs` (run by `npm run bench`), so the
//! native and the browser runs measure the same notes and queries. Results are printed and
//! written to `target/bench/native.json`, which `npm run bench` folds into BENCHMARKS.md.
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

    use async_trait::async_trait;
    use futures::executor::block_on;
    use serde_json::json;
    use vault_agent::host::Clock;
    use vault_agent::search::{SearchIndex, SearchQuery, ThreadParts};
    use vault_agent::vault::{MemoryVault, Vault, VaultPath};

    /// Wall time; sleeping is a no-op (nothing else runs on this thread).
    struct WallClock;

    #[async_trait(?Send)]
    impl Clock for WallClock {
        fn now_ms(&self) -> u64 {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
        }
        async fn sleep(&self, _ms: u64) {}
    }

    fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench")
    }

    fn percentile(sorted: &[f64], p: f64) -> f64 {
        sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
    }

    fn ms(since: Instant) -> f64 {
        since.elapsed().as_secs_f64() * 1000.0
    }

    fn corpus(name: &str) -> Option<(BTreeMap<String, String>, Vec<String>)> {
        #[derive(serde::Deserialize)]
        struct Bundle {
            files: BTreeMap<String, String>,
        }
        let bundle = std::fs::read(dir().join(format!("{name}.json"))).ok()?;
        let queries = std::fs::read(dir().join(format!("queries-{name}.json"))).ok()?;
        let bundle: Bundle = serde_json::from_slice(&bundle).ok()?;
        Some((bundle.files, serde_json::from_slice(&queries).ok()?))
    }

    fn run(name: &str) -> Option<serde_json::Value> {
        let Some((files, queries)) = corpus(name) else {
            eprintln!("no corpus {name}: run `node bench/corpus.mjs` first (npm run bench does)");
            return None;
        };
        let vault = MemoryVault::new();
        block_on(async {
            for (path, text) in &files {
                vault.write(&VaultPath::parse(path).unwrap(), text).await.unwrap();
            }
        });
        let mb = files.values().map(String::len).sum::<usize>() as f64 / 1e6;

        // Full build: the best of three.
        let mut builds = Vec::new();
        let mut index = None;
        for _ in 0..3 {
            let start = Instant::now();
            let built = block_on(SearchIndex::build(&vault, &WallClock, &mut |_| {})).unwrap();
            builds.push(ms(start));
            index = Some(built);
        }
        let mut index = index.unwrap();
        builds.sort_by(f64::total_cmp);

        // Queries: a warm-up pass, then timed passes with and without snippets.
        let time_queries = |index: &SearchIndex, snippets: bool| {
            let mut times = Vec::new();
            for q in &queries {
                let request = SearchQuery { text: q.clone(), limit: 10, snippets, ..SearchQuery::default() };
                let start = Instant::now();
                let hits = index.search(&request).unwrap();
                times.push(ms(start));
                std::hint::black_box(hits);
            }
            times.sort_by(f64::total_cmp);
            times
        };
        time_queries(&index, true);
        let with_snippets = time_queries(&index, true);
        let ranking_only = time_queries(&index, false);
        // p50 with snippets and ranking only, after a warm-up pass.
        let p50s = |index: &SearchIndex| {
            time_queries(index, true);
            (percentile(&time_queries(index, true), 0.5), percentile(&time_queries(index, false), 0.5))
        };

        // The same in parts on threads (the CLI's build: one part per spare core): the build,
        // queries over its parts (a segment each), its first save (the parts as they are), and
        // the compaction that folds them into one segment at the save after a change; the best
        // of three.
        let (mut parted, mut parted_saves, mut compactions, mut parts) = (Vec::new(), Vec::new(), Vec::new(), 1);
        let mut parted_queries = Vec::new();
        for _ in 0..3 {
            let start = Instant::now();
            let mut built =
                block_on(SearchIndex::build_in_parts(&vault, &WallClock, &mut |_| {}, Some(&ThreadParts))).unwrap();
            parted.push(ms(start));
            parts = built.built_in_parts();
            time_queries(&built, true);
            parted_queries.push(percentile(&time_queries(&built, true), 0.5));
            let saved = MemoryVault::new();
            let start = Instant::now();
            block_on(built.persist(&saved)).unwrap();
            parted_saves.push(ms(start));
            built.remove(files.keys().next().unwrap());
            let start = Instant::now();
            built.compact().unwrap();
            compactions.push(ms(start));
        }
        for times in [&mut parted, &mut parted_saves, &mut compactions, &mut parted_queries] {
            times.sort_by(f64::total_cmp);
        }

        // One-note update: rewrite a note 50 times (each a real change).
        let (path, text) = files.iter().nth(files.len() / 2).unwrap();
        let mut updates = Vec::new();
        for i in 0..50 {
            let start = Instant::now();
            index.index_note(path, &format!("{text}\n\nedit {i}"), i).unwrap();
            updates.push(ms(start));
        }
        updates.sort_by(f64::total_cmp);

        // Persist (the first save: the whole index, the updated note beside it), then a save
        // after ten more notes changed (the changes beside the main shard already saved), the
        // load of that, and a save after a compaction (what every save after a change cost
        // before saves wrote changes alone), then the load of the compacted index.
        let start = Instant::now();
        block_on(index.persist(&vault)).unwrap();
        let persist = ms(start);
        for (i, (path, text)) in files.iter().take(10).enumerate() {
            index.index_note(path, &format!("{text}\n\nchanged {i}"), 100).unwrap();
        }
        let start = Instant::now();
        let changes_bytes = block_on(index.persist(&vault)).unwrap();
        let save_changes = ms(start);
        let load = |vault: &MemoryVault| {
            let mut loads = Vec::new();
            for _ in 0..3 {
                let start = Instant::now();
                let loaded = block_on(SearchIndex::load(vault)).map_err(|e| format!("{e:?}")).unwrap();
                loads.push(ms(start));
                std::hint::black_box(loaded);
            }
            loads.sort_by(f64::total_cmp);
            loads[0]
        };
        let load_with_changes = load(&vault);
        index.index_note(files.keys().nth(10).unwrap(), "# Changed\n\nonce more", 101).unwrap();
        let start = Instant::now();
        index.compact().unwrap();
        let compacted_bytes = block_on(index.persist(&vault)).unwrap();
        let compact_save = ms(start);
        let load_compacted = load(&vault);

        // Queries over an index holding as many changes as a save keeps beside the main shard
        // (past them it compacts): that many notes rewritten, each replaced document skipped
        // after it is ranked.
        let compacted = p50s(&index);
        let bound = index.changes_bound();
        let rewrite = |index: &mut SearchIndex, range: std::ops::Range<usize>| {
            for (i, (path, text)) in files.iter().enumerate().skip(20 + range.start).take(range.len()) {
                index.index_note(path, &format!("{text}\n\nrewritten {i}"), 200).unwrap();
            }
        };
        rewrite(&mut index, 0..64);
        block_on(index.persist(&MemoryVault::new())).unwrap();
        let saved64 = p50s(&index);
        rewrite(&mut index, 64..bound);
        assert!(!index.compaction_due());
        let at_bound = p50s(&index);
        // As a save leaves it (and a load gives it): the deltas folded into one.
        block_on(index.persist(&MemoryVault::new())).unwrap();
        let saved = p50s(&index);

        let result = json!({
            "notes": files.len(),
            "mb": mb,
            "queries": queries.len(),
            "build_ms": builds[0],
            "parts_build_ms": parted[0],
            "parts": parts,
            "parts_query_p50_ms": parted_queries[0],
            "parts_persist_ms": parted_saves[0],
            "parts_compact_ms": compactions[0],
            "query_p50_ms": percentile(&with_snippets, 0.5),
            "query_p99_ms": percentile(&with_snippets, 0.99),
            "query_nosnippet_p50_ms": percentile(&ranking_only, 0.5),
            "query_nosnippet_p99_ms": percentile(&ranking_only, 0.99),
            "update_p50_ms": percentile(&updates, 0.5),
            "update_p99_ms": percentile(&updates, 0.99),
            "persist_ms": persist,
            "save_changes_ms": save_changes,
            "save_changes_bytes": changes_bytes,
            "compact_save_ms": compact_save,
            "compact_save_bytes": compacted_bytes,
            "load_ms": load_compacted,
            "load_with_changes_ms": load_with_changes,
            "changes_bound": bound,
            "query_compacted_p50_ms": compacted.0,
            "query_compacted_nosnippet_p50_ms": compacted.1,
            "query_at_64_saved_p50_ms": saved64.0,
            "query_at_64_saved_nosnippet_p50_ms": saved64.1,
            "query_at_bound_p50_ms": at_bound.0,
            "query_at_bound_nosnippet_p50_ms": at_bound.1,
            "query_at_bound_saved_p50_ms": saved.0,
            "query_at_bound_saved_nosnippet_p50_ms": saved.1,
        });
        println!("{name}: {result}");
        Some(result)
    }

    pub fn main() {
        // `cargo bench` passes `--bench`; a filter argument selects one corpus.
        let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
        let mut results = serde_json::Map::new();
        for name in ["real", "gen50k"] {
            if !only.is_empty() && !only.iter().any(|o| o == name) {
                continue;
            }
            if let Some(r) = run(name) {
                results.insert(name.to_string(), r);
            }
        }
        std::fs::create_dir_all(dir()).unwrap();
        std::fs::write(dir().join("native.json"), serde_json::to_vec_pretty(&results).unwrap()).unwrap();
    }
}
