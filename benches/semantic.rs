//! Semantic search, natively (release build): embedding throughput of the static model and of
//! MiniLM, query latency over 50,000 vectors, and retrieval quality (nDCG@10, recall@10, MRR) of
//! BM25, each embedder, and each fusion on the paraphrase queries of
//! `bench/semantic_queries.json` over the sample vault's English notes.
//!
//! `cargo bench --bench semantic` (writes `target/bench/semantic-native.json`, prints tables).
//! Needs `models/static-minilm-l6-v2-256.vam` and the MiniLM files (`scripts/setup.sh`).

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main();
}

#[cfg(not(target_arch = "wasm32"))]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod native {
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::time::Instant;

    use serde_json::{json, Value};
    use vault_agent::embed::{
        embed_chunks, fuse, normalize, Fusion, MiniLm, Precision, StaticEmbedder, VectorIndex, MAX_CHUNK_CHARS,
        STATIC_MODEL_REPO_PATH,
    };
    use vault_agent::search::{parse_note, SearchIndex, SearchQuery};

    fn repo() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    fn minilm_dir() -> PathBuf {
        let out = std::process::Command::new("bash").arg(repo().join("scripts/minilm_path.sh")).output().unwrap();
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    }

    fn minilm(max_tokens: usize) -> MiniLm {
        let dir = minilm_dir();
        let read = |n: &str| std::fs::read(dir.join(n)).unwrap();
        MiniLm::load(
            &read("model.safetensors"),
            &String::from_utf8(read("vocab.txt")).unwrap(),
            &String::from_utf8(read("config.json")).unwrap(),
            max_tokens,
        )
        .unwrap()
    }

    /// Every `.md` note below `dir` of the sample vault: (vault path, text).
    fn notes_below(dir: &str) -> Vec<(String, String)> {
        let vault = repo().join("../shared/vaults/obsidian-help");
        let mut out = Vec::new();
        let mut stack = vec![vault.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "md") {
                    let rel = p.strip_prefix(&vault).unwrap().to_string_lossy().into_owned();
                    out.push((rel, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    struct Chunked {
        /// (path, heading, text) per chunk.
        chunks: Vec<(String, Option<String>, String)>,
    }

    fn chunk(notes: &[(String, String)]) -> Chunked {
        let mut chunks = Vec::new();
        for (path, text) in notes {
            let note = parse_note(path, text);
            for c in embed_chunks(&note, MAX_CHUNK_CHARS) {
                chunks.push((path.clone(), c.heading, c.text));
            }
        }
        Chunked { chunks }
    }

    fn index_of(chunked: &Chunked, vectors: &[Vec<f32>], id: &str, precision: Precision) -> VectorIndex {
        type Chunks = Vec<(Option<String>, Vec<f32>)>;
        let mut by_note: BTreeMap<&str, Chunks> = BTreeMap::new();
        for ((path, heading, _), v) in chunked.chunks.iter().zip(vectors) {
            by_note.entry(path).or_default().push((heading.clone(), v.clone()));
        }
        let dims = vectors.first().map_or(0, Vec::len);
        let mut index = VectorIndex::new(id, dims, precision);
        for (path, chunks) in by_note {
            index.insert(path, "h", 0, chunks).unwrap();
        }
        index
    }

    fn ndcg_at_10(ranked: &[String], relevant: &[String]) -> (f64, f64, f64) {
        let mut dcg = 0.0;
        let mut rr = 0.0;
        let mut found = 0;
        for (i, p) in ranked.iter().take(10).enumerate() {
            if relevant.contains(p) {
                dcg += 1.0 / ((i + 2) as f64).log2();
                found += 1;
                if rr == 0.0 {
                    rr = 1.0 / (i + 1) as f64;
                }
            }
        }
        let ideal: f64 = (0..relevant.len().min(10)).map(|i| 1.0 / ((i + 2) as f64).log2()).sum();
        (dcg / ideal, found as f64 / relevant.len() as f64, rr)
    }

    struct Query {
        text: String,
        relevant: Vec<String>,
        lang: Option<String>,
        /// `paraphrase` (no content word shared with the note) or `question` (some shared).
        kind: String,
    }

    fn queries() -> (Vec<Query>, Vec<Query>) {
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(repo().join("bench/semantic_queries.json")).unwrap())
                .unwrap();
        let read = |key: &str| {
            v[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| Query {
                    text: q["query"].as_str().unwrap().to_string(),
                    relevant: q["relevant"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| r.as_str().unwrap().to_string())
                        .collect(),
                    lang: q["lang"].as_str().map(str::to_string),
                    kind: q["kind"].as_str().unwrap_or("paraphrase").to_string(),
                })
                .collect::<Vec<_>>()
        };
        (read("queries"), read("crossLingual"))
    }

    fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
        let start = Instant::now();
        let out = f();
        (out, start.elapsed().as_secs_f64())
    }

    fn percentile(sorted: &[f64], p: f64) -> f64 {
        sorted[((sorted.len() - 1) as f64 * p).round() as usize]
    }

    /// Query latency over `n` random unit vectors of `dims` (5 chunks per note), top 10.
    fn latency(n: usize, dims: usize, precision: Precision) -> (f64, f64) {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let mut index = VectorIndex::new("random", dims, precision);
        for note in 0..n / 5 {
            let chunks = (0..5)
                .map(|_| {
                    let mut v: Vec<f32> = (0..dims).map(|_| next()).collect();
                    normalize(&mut v);
                    (None, v)
                })
                .collect();
            index.insert(&format!("note{note}.md"), "h", 0, chunks).unwrap();
        }
        let queries: Vec<Vec<f32>> = (0..220)
            .map(|_| {
                let mut v: Vec<f32> = (0..dims).map(|_| next()).collect();
                normalize(&mut v);
                v
            })
            .collect();
        let mut times: Vec<f64> = queries
            .iter()
            .enumerate()
            .filter_map(|(i, q)| {
                let (hits, t) = time(|| index.search(q, 10, &|_| true));
                assert_eq!(hits.len(), 10);
                (i >= 20).then_some(t * 1000.0)
            })
            .collect();
        times.sort_by(f64::total_cmp);
        (percentile(&times, 0.5), percentile(&times, 0.99))
    }

    pub fn main() {
        let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
        let want = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
        let mut results = serde_json::Map::new();
        let notes = notes_below("en");
        let chunked = chunk(&notes);
        let texts: Vec<&str> = chunked.chunks.iter().map(|c| c.2.as_str()).collect();
        let chars: usize = texts.iter().map(|t| t.chars().count()).sum();
        println!(
            "corpus: {} English notes, {} chunks, {} characters on average",
            notes.len(),
            texts.len(),
            chars / texts.len()
        );
        results.insert(
            "corpus".into(),
            json!({"notes": notes.len(), "chunks": texts.len(), "avg_chars": chars / texts.len()}),
        );

        // ---- throughput ------------------------------------------------------------------
        let static_model =
            StaticEmbedder::from_bytes(&std::fs::read(repo().join(STATIC_MODEL_REPO_PATH)).unwrap()).unwrap();
        let (static_vectors, secs) = time(|| texts.iter().map(|t| static_model.embed_one(t)).collect::<Vec<_>>());
        let static_rate = texts.len() as f64 / secs;
        println!("static: {static_rate:.0} chunks/s");
        results.insert("static_chunks_per_s".into(), json!(static_rate));

        let mut models: Vec<(String, Vec<Vec<f32>>)> = vec![("static".into(), static_vectors)];
        if want("minilm") {
            for (max_tokens, batch) in [(128usize, 1usize), (128, 8), (256, 8)] {
                let model = minilm(max_tokens);
                let sample = &texts[..texts.len().min(150)];
                let tokens: usize = sample.iter().map(|t| model.vocab().encode(t, max_tokens).len()).sum();
                let (_, secs) = time(|| sample.chunks(batch).for_each(|b| drop(model.embed_texts(b))));
                let rate = sample.len() as f64 / secs;
                let gflops = tokens as f64 * 2.0 * 10.6e6 / secs / 1e9;
                println!(
                    "minilm@{max_tokens} batch {batch}: {rate:.1} chunks/s ({:.0} tokens/chunk, ~{gflops:.1} GFLOP/s)",
                    tokens as f64 / sample.len() as f64
                );
                results.insert(format!("minilm{max_tokens}_b{batch}_chunks_per_s"), json!(rate));
                results
                    .insert(format!("minilm{max_tokens}_tokens_per_chunk"), json!(tokens as f64 / sample.len() as f64));
            }
            for max_tokens in [128usize, 256] {
                let model = minilm(max_tokens);
                let (vectors, secs) = time(|| texts.chunks(8).flat_map(|b| model.embed_texts(b)).collect::<Vec<_>>());
                println!("minilm@{max_tokens}: embedded the corpus in {secs:.0} s");
                models.push((format!("minilm@{max_tokens}"), vectors));
            }
        }

        // ---- latency over 50,000 vectors ----------------------------------------------------
        let mut latency_rows = Vec::new();
        for (dims, precision) in
            [(256, Precision::F32), (256, Precision::Int8), (384, Precision::F32), (384, Precision::Int8)]
        {
            let (p50, p99) = latency(50_000, dims, precision);
            println!("latency over 50,000 × {dims} {precision:?}: p50 {p50:.2} ms, p99 {p99:.2} ms");
            latency_rows
                .push(json!({"dims": dims, "precision": format!("{precision:?}"), "p50_ms": p50, "p99_ms": p99}));
        }
        results.insert("latency_50k".into(), json!(latency_rows));

        // ---- quality ------------------------------------------------------------------------
        let (queries, cross) = queries();
        let bm25 = SearchIndex::from_notes(notes.iter().map(|(p, t)| (p.as_str(), t.as_str(), 0))).unwrap();
        let bm25_list = |q: &str| -> Vec<(String, f32)> {
            let request = SearchQuery { text: q.into(), limit: 50, snippets: false, ..SearchQuery::default() };
            bm25.search(&request).unwrap().into_iter().map(|h| (h.path, h.score)).collect()
        };
        // Per ranking: (nDCG@10, recall@10, MRR) over the paraphrases, the questions, and all.
        const SETS: [&str; 3] = ["paraphrase", "question", "all"];
        type Scores = (f64, f64, f64);
        let mut quality: Vec<(String, [Scores; 3])> = Vec::new();
        let mut record = |name: String, ranked: &dyn Fn(&Query) -> Vec<String>, set: &[Query]| {
            let mut sums = [(0.0, 0.0, 0.0, 0usize); 3];
            for q in set {
                let (a, b, c) = ndcg_at_10(&ranked(q), &q.relevant);
                for (i, kind) in SETS.iter().enumerate() {
                    if *kind == "all" || *kind == q.kind {
                        sums[i] = (sums[i].0 + a, sums[i].1 + b, sums[i].2 + c, sums[i].3 + 1);
                    }
                }
            }
            let mean = |(n, r, m, k): (f64, f64, f64, usize)| {
                let k = k.max(1) as f64;
                (n / k, r / k, m / k)
            };
            quality.push((name, sums.map(mean)));
        };
        record("BM25".into(), &|q| bm25_list(&q.text).into_iter().map(|x| x.0).collect(), &queries);
        let fusions: Vec<(String, Fusion)> = vec![
            ("RRF k=60".into(), Fusion::Rrf { k: 60.0 }),
            ("weighted w=0.5".into(), Fusion::Weighted { dense: 0.5 }),
            ("weighted w=0.7".into(), Fusion::Weighted { dense: 0.7 }),
            ("weighted w=0.8".into(), Fusion::Weighted { dense: 0.8 }),
            ("dense-first λ=0.05".into(), Fusion::DenseFirst { bm25: 0.05 }),
            ("dense-first λ=0.1".into(), Fusion::DenseFirst { bm25: 0.1 }),
        ];
        let mut cross_rows = Vec::new();
        for (name, vectors) in &models {
            // MiniLM is loaded once per model, not once per query.
            let model = name.strip_prefix("minilm@").map(|max_tokens| minilm(max_tokens.parse().unwrap()));
            let embed_query = |text: &str| -> Vec<f32> {
                match &model {
                    None => static_model.embed_one(text),
                    Some(model) => model.embed_texts(&[text]).pop().unwrap(),
                }
            };
            let query_vectors: Vec<Vec<f32>> = queries.iter().map(|q| embed_query(&q.text)).collect();
            let cross_vectors: Vec<Vec<f32>> = cross.iter().map(|q| embed_query(&q.text)).collect();
            for precision in [Precision::F32, Precision::Int8] {
                if precision == Precision::Int8 && name != "static" {
                    continue;
                }
                let index = index_of(&chunked, vectors, name, precision);
                let dense = |i: usize| -> Vec<(String, f32)> {
                    index.search(&query_vectors[i], 50, &|_| true).into_iter().map(|h| (h.path, h.score)).collect()
                };
                let position = |q: &Query| queries.iter().position(|x| std::ptr::eq(x, q)).unwrap();
                let suffix = if precision == Precision::Int8 { " int8" } else { "" };
                record(
                    format!("{name}{suffix} (vectors)"),
                    &|q| dense(position(q)).into_iter().map(|x| x.0).collect(),
                    &queries,
                );
                if precision == Precision::Int8 {
                    continue;
                }
                for (fname, fusion) in &fusions {
                    record(
                        format!("{name} + BM25, {fname}"),
                        &|q| {
                            fuse(&bm25_list(&q.text), &dense(position(q)), *fusion)
                                .into_iter()
                                .map(|f| f.path)
                                .collect()
                        },
                        &queries,
                    );
                }
                // Cross-lingual: rank of the English note for queries in other languages.
                for (q, v) in cross.iter().zip(&cross_vectors) {
                    let ranked: Vec<String> = index.search(v, 10, &|_| true).into_iter().map(|h| h.path).collect();
                    let rank = ranked.iter().position(|p| q.relevant.contains(p)).map(|r| r + 1);
                    let bm25_rank =
                        bm25_list(&q.text).iter().take(10).position(|p| q.relevant.contains(&p.0)).map(|r| r + 1);
                    cross_rows.push(
                        json!({"model": name, "lang": q.lang, "query": q.text, "rank": rank, "bm25_rank": bm25_rank}),
                    );
                }
            }
        }
        let count = |kind: &str| queries.iter().filter(|q| kind == "all" || q.kind == kind).count();
        println!(
            "\n| ranking | nDCG@10 paraphrases ({}) | nDCG@10 questions ({}) | nDCG@10 all ({}) | recall@10 all | MRR all |",
            count("paraphrase"),
            count("question"),
            count("all")
        );
        println!("|---|---:|---:|---:|---:|---:|");
        for (name, [p, q, a]) in &quality {
            println!("| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |", p.0, q.0, a.0, a.1, a.2);
        }
        results.insert(
            "quality".into(),
            json!(quality
                .iter()
                .map(|(name, sets)| {
                    let mut row = serde_json::Map::new();
                    row.insert("ranking".into(), json!(name));
                    for (kind, (n, r, m)) in SETS.iter().zip(sets) {
                        row.insert(kind.to_string(), json!({"ndcg10": n, "recall10": r, "mrr": m}));
                    }
                    Value::Object(row)
                })
                .collect::<Vec<_>>()),
        );
        println!("\ncross-lingual (rank of the English note in the top 10):");
        for row in &cross_rows {
            println!(
                "  {} [{}] {:?}: {:?} (BM25 {:?})",
                row["model"], row["lang"], row["query"], row["rank"], row["bm25_rank"]
            );
        }
        results.insert("cross_lingual".into(), json!(cross_rows));
        let out = repo().join("target/bench");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(
            out.join("semantic-native.json"),
            serde_json::to_string_pretty(&Value::Object(results)).unwrap(),
        )
        .unwrap();
    }
}
