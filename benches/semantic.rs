//! Semantic search, natively (release build): embedding throughput of the static model and of
//! MiniLM, query latency over 50,000 vectors, and retrieval quality (nDCG@10, recall@10, MRR) of
//! plain BM25 (a baseline written here), the full-text index, each embedder, and each fusion, on
//! the query sets of `bench/semantic_queries.json` (paraphrases; questions, split into a tuning
//! and a held-out part) and on known-item queries generated from the notes (titles, titles with
//! a typo, quoted phrases): over the sample vault's English notes, and full text over the whole
//! vault too.
//!
//! `cargo bench --bench semantic` (writes `target/bench/semantic-native.json`, prints tables);
//! `cargo bench --bench semantic -- quality` skips throughput and latency, `-- quality static`
//! leaves MiniLM's vectors of the notes out too (MiniLM still reads the queries of the static
//! model's "queries read by MiniLM" rows), `-- quality fulltext` measures full text alone;
//! `STATIC_MODEL=FILE` measures another static model file, `QUERY_MAP=FILE` another query map;
//! `DUMP=RANKING` prints one ranking's score and first hits for each query (to stderr).
//! Needs `models/static-minilm-l6-v2-256.vam`, `models/minilm-queries-256.vaqm` and the MiniLM
//! files (`scripts/setup.sh`).

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
        embed_chunks, fuse, hybrid_rank, normalize, relevance_floor, Fusion, HybridQuery, MiniLm, Precision, QueryMap,
        SearchMode, StaticEmbedder, VectorIndex, CANDIDATES, MAX_CHUNK_CHARS, QUERY_TOKENS, STATIC_MODEL_REPO_PATH,
    };
    use vault_agent::search::{parse_note, SearchIndex, SearchQuery};

    /// The ranking of the static model's vectors with queries read by MiniLM (its name starts
    /// with "static": the static model's relevance floor).
    const READ_BY_MINILM: &str = "static, queries read by MiniLM";

    fn repo() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    fn minilm_dir() -> PathBuf {
        let out = std::process::Command::new("bash").arg(repo().join("scripts/minilm_path.sh")).output().unwrap();
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    }

    fn minilm(max_tokens: usize) -> MiniLm {
        MiniLm::load_dir(&minilm_dir(), max_tokens).unwrap()
    }

    /// Every `.md` note below `dir` of the sample vault: (vault path, text).
    /// The committed query map, or `QUERY_MAP=FILE`.
    fn read_query_map() -> QueryMap {
        let file = std::env::var_os("QUERY_MAP").map_or(repo().join("models/minilm-queries-256.vaqm"), Into::into);
        QueryMap::from_bytes(&std::fs::read(file).unwrap()).unwrap()
    }

    fn notes_below(dir: &str) -> Vec<(String, String)> {
        let vault = repo().join("../shared/vaults/obsidian-help");
        let mut out = Vec::new();
        let mut stack = vec![vault.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
                    continue;
                }
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
        /// Which set it counts in: see [`SETS`].
        set: &'static str,
    }

    /// The query sets, in the order the tables show them. Questions are split for tuning: every
    /// third one (2, 5, 8, … among the questions) is held out and never used to pick a weight.
    const SETS: [&str; 7] =
        ["paraphrase", "question-tune", "question-heldout", "question", "known-title", "known-typo", "known-phrase"];

    fn in_set(q: &Query, set: &str) -> bool {
        q.set == set || (set == "question" && q.set.starts_with("question-"))
    }

    fn queries() -> (Vec<Query>, Vec<Query>) {
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(repo().join("bench/semantic_queries.json")).unwrap())
                .unwrap();
        let mut questions = 0;
        let mut read = |key: &str| {
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
                    set: match q["kind"].as_str().unwrap_or("paraphrase") {
                        "question" => {
                            questions += 1;
                            if questions % 3 == 0 {
                                "question-heldout"
                            } else {
                                "question-tune"
                            }
                        }
                        _ => "paraphrase",
                    },
                })
                .collect::<Vec<_>>()
        };
        (read("queries"), read("crossLingual"))
    }

    /// Lower-case runs of letters and digits: "simple words".
    fn simple_words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    }

    /// Known-item queries generated from the notes (deterministic): each note's title; the title
    /// with two letters of its longest word swapped (a typo); and a quoted run of four words from
    /// the note's first line of prose (a phrase). A title's relevant notes are the notes with that
    /// title; a phrase's, every note holding those four words in a row.
    fn known_items(notes: &[(String, String)]) -> Vec<Query> {
        let title = |p: &str| p.rsplit('/').next().unwrap().trim_end_matches(".md").to_string();
        let words: Vec<Vec<String>> = notes.iter().map(|(_, t)| simple_words(t)).collect();
        let mut out = Vec::new();
        for (i, (path, text)) in notes.iter().enumerate() {
            let t = title(path);
            let same: Vec<String> = notes.iter().filter(|(p, _)| title(p) == t).map(|(p, _)| p.clone()).collect();
            out.push(Query { text: t.clone(), relevant: same.clone(), lang: None, set: "known-title" });
            if let Some(w) = t
                .split(' ')
                .filter(|w| w.len() >= 5 && w.chars().all(|c| c.is_ascii_alphabetic()))
                .max_by_key(|w| w.len())
            {
                let mut c: Vec<char> = w.chars().collect();
                let mid = c.len() / 2;
                c.swap(mid - 1, mid);
                let typo: String = c.into_iter().collect();
                out.push(Query { text: t.replacen(w, &typo, 1), relevant: same, lang: None, set: "known-typo" });
            }
            let body = text.strip_prefix("---").and_then(|r| r.split_once("\n---").map(|x| x.1)).unwrap_or(text);
            let prose = body.lines().map(str::trim).find(|l| {
                l.split_whitespace().count() >= 8
                    && !l.starts_with(['#', '>', '|', '!', '-', '*', '`', '<'])
                    && !l.contains("[[")
            });
            if let Some(line) = prose {
                let run: Vec<String> = simple_words(line).into_iter().skip(1).take(4).collect();
                if run.len() == 4 {
                    let relevant = notes
                        .iter()
                        .zip(&words)
                        .filter(|(_, w)| w.windows(4).any(|x| x == run.as_slice()))
                        .map(|((p, _), _)| p.clone())
                        .collect::<Vec<_>>();
                    debug_assert!(relevant.contains(&notes[i].0));
                    out.push(Query {
                        text: format!("\"{}\"", run.join(" ")),
                        relevant,
                        lang: None,
                        set: "known-phrase",
                    });
                }
            }
        }
        out
    }

    /// Plain BM25 (Okapi, k1 = 1.2, b = 0.75, as `rank_bm25.BM25Okapi`: negative idfs raised to
    /// 0.25 × the mean idf) over each note's whole file as simple words: the baseline.
    struct PlainBm25 {
        docs: Vec<(String, std::collections::HashMap<String, u32>, f64)>,
        idf: std::collections::HashMap<String, f64>,
        avgdl: f64,
    }

    impl PlainBm25 {
        fn new(notes: &[(String, String)]) -> PlainBm25 {
            let mut df: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
            let mut docs = Vec::new();
            for (path, text) in notes {
                let words = simple_words(text);
                let mut tf: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
                for w in &words {
                    *tf.entry(w.clone()).or_default() += 1;
                }
                for w in tf.keys() {
                    *df.entry(w.clone()).or_default() += 1;
                }
                docs.push((path.clone(), tf, words.len() as f64));
            }
            let n = docs.len() as f64;
            let avgdl = docs.iter().map(|d| d.2).sum::<f64>() / n;
            let mut idf: std::collections::HashMap<String, f64> =
                df.iter().map(|(w, &f)| (w.clone(), ((n - f as f64 + 0.5) / (f as f64 + 0.5)).ln())).collect();
            let mean = idf.values().sum::<f64>() / idf.len() as f64;
            for v in idf.values_mut() {
                if *v < 0.0 {
                    *v = 0.25 * mean;
                }
            }
            PlainBm25 { docs, idf, avgdl }
        }

        fn search(&self, query: &str, k: usize) -> Vec<(String, f32)> {
            let (k1, b) = (1.2, 0.75);
            let terms = simple_words(query);
            let mut scored: Vec<(String, f32)> = self
                .docs
                .iter()
                .map(|(path, tf, len)| {
                    let s: f64 = terms
                        .iter()
                        .map(|t| {
                            let f = f64::from(*tf.get(t).unwrap_or(&0));
                            self.idf.get(t).unwrap_or(&0.0) * f * (k1 + 1.0)
                                / (f + k1 * (1.0 - b + b * len / self.avgdl))
                        })
                        .sum();
                    (path.clone(), s as f32)
                })
                .filter(|x| x.1 > 0.0)
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            scored.truncate(k);
            scored
        }
    }

    /// Per ranking: (nDCG@10, recall@10, MRR) per set of [`SETS`].
    type Scores = (f64, f64, f64);
    type Table = Vec<(String, [Option<Scores>; SETS.len()])>;

    fn score(table: &mut Table, name: String, queries: &[Query], ranked: &dyn Fn(usize) -> Vec<String>) {
        let mut sums = [(0.0, 0.0, 0.0, 0usize); SETS.len()];
        for (i, q) in queries.iter().enumerate() {
            let list = ranked(i);
            let (a, b, c) = ndcg_at_10(&list, &q.relevant);
            // DUMP=RANKING prints that ranking's nDCG and first five hits for every query.
            if std::env::var("DUMP").is_ok_and(|d| d == name) {
                eprintln!("DUMP [{}] {a:.3} {:?} -> {:?}", q.set, q.text, &list[..list.len().min(5)]);
            }
            for (k, set) in SETS.iter().enumerate() {
                if in_set(q, set) {
                    sums[k] = (sums[k].0 + a, sums[k].1 + b, sums[k].2 + c, sums[k].3 + 1);
                }
            }
        }
        let mean = |(n, r, m, k): (f64, f64, f64, usize)| (k > 0).then(|| (n / k as f64, r / k as f64, m / k as f64));
        table.push((name, sums.map(mean)));
    }

    fn print_table(title: &str, queries: &[Query], table: &Table) {
        let count = |set: &str| queries.iter().filter(|q| in_set(q, set)).count();
        println!("\n{title} (nDCG@10)\n");
        let head: Vec<String> = SETS.iter().map(|s| format!("{s} ({})", count(s))).collect();
        println!("| ranking | {} |", head.join(" | "));
        println!("|---|{}", "---:|".repeat(SETS.len()));
        for (name, sets) in table {
            let cells: Vec<String> = sets.iter().map(|s| s.map_or("—".into(), |s| format!("{:.3}", s.0))).collect();
            println!("| {name} | {} |", cells.join(" | "));
        }
    }

    fn table_json(table: &Table) -> Value {
        json!(table
            .iter()
            .map(|(name, sets)| {
                let mut row = serde_json::Map::new();
                row.insert("ranking".into(), json!(name));
                for (set, s) in SETS.iter().zip(sets) {
                    if let Some((n, r, m)) = s {
                        row.insert(set.to_string(), json!({"ndcg10": n, "recall10": r, "mrr": m}));
                    }
                }
                Value::Object(row)
            })
            .collect::<Vec<_>>())
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

    /// Queries the English help vault has no answer to.
    const NONSENSE: [&str; 10] = [
        "qwzx plorf vbnm",
        "xyzzy frobnicate",
        "banana bread recipe with walnuts",
        "who won the football world cup in 1998",
        "sicilian defence chess opening theory",
        "the mitochondria is the powerhouse of the cell",
        "purple elephant dancing on mars",
        "lorem ipsum dolor sit amet",
        "how to change a flat bicycle tyre",
        "best pizza dough hydration",
    ];

    /// For one model: the cosines at which the relevant notes of the questions and paraphrases
    /// are found (when in the top 10), and the cosine of the first hit of each nonsense query.
    fn floor_calibration(
        name: &str,
        queries: &[Query],
        dense_lists: &[Vec<(String, f32)>],
        index: &VectorIndex,
        embed: &dyn Fn(&str) -> Vec<f32>,
    ) -> Value {
        let mut found: Vec<f32> = Vec::new();
        for (q, list) in queries.iter().zip(dense_lists) {
            if q.set.starts_with("known-") {
                continue;
            }
            found.extend(list.iter().take(10).filter(|(p, _)| q.relevant.contains(p)).map(|x| x.1));
        }
        found.sort_by(f32::total_cmp);
        let mut nonsense: Vec<f32> =
            NONSENSE.iter().map(|q| index.search(&embed(q), 1, &|_| true).first().map_or(0.0, |h| h.score)).collect();
        nonsense.sort_by(f32::total_cmp);
        let pct = |p: f64| found[((found.len() - 1) as f64 * p).round() as usize];
        json!({
            "model": name,
            "relevant_found": found.len(),
            "relevant_min": found[0], "relevant_p5": pct(0.05), "relevant_p10": pct(0.10), "relevant_median": pct(0.5),
            "nonsense_first_hit": nonsense,
            "floor_in_use": relevance_floor(index.embedder()),
        })
    }

    /// Every fusion the tables report.
    fn fusions() -> Vec<(String, Fusion)> {
        vec![
            ("RRF k=60".into(), Fusion::Rrf { k: 60.0 }),
            ("weighted w=0.5".into(), Fusion::Weighted { dense: 0.5 }),
            ("weighted w=0.7".into(), Fusion::Weighted { dense: 0.7 }),
            ("weighted w=0.8".into(), Fusion::Weighted { dense: 0.8 }),
            ("dense-first λ=0.05".into(), Fusion::DenseFirst { bm25: 0.05 }),
            ("dense-first λ=0.1".into(), Fusion::DenseFirst { bm25: 0.1 }),
            ("covered w=0.5 p=1".into(), Fusion::Covered { dense: 0.5, power: 1.0 }),
            ("covered w=0.5 p=2".into(), Fusion::Covered { dense: 0.5, power: 2.0 }),
            ("covered w=0.6 p=2".into(), Fusion::Covered { dense: 0.6, power: 2.0 }),
            ("covered w=0.7 p=2".into(), Fusion::Covered { dense: 0.7, power: 2.0 }),
            ("covered w=0.5 p=4".into(), Fusion::Covered { dense: 0.5, power: 4.0 }),
            ("confident w=0.5".into(), Fusion::Confident { dense: 0.5 }),
            ("confident w=0.6".into(), Fusion::Confident { dense: 0.6 }),
            ("rank-covered k=10 w=0.5".into(), Fusion::RankCovered { k: 10.0, dense: 0.5 }),
            ("rank-covered k=60 w=0.5".into(), Fusion::RankCovered { k: 60.0, dense: 0.5 }),
            ("rank-covered k=10 w=0.6".into(), Fusion::RankCovered { k: 10.0, dense: 0.6 }),
            ("rank-covered k=5 w=0.5".into(), Fusion::RankCovered { k: 5.0, dense: 0.5 }),
            ("rank-covered k=20 w=0.5".into(), Fusion::RankCovered { k: 20.0, dense: 0.5 }),
            ("rank-covered k=10 w=0.55".into(), Fusion::RankCovered { k: 10.0, dense: 0.55 }),
            ("covered w=0.55 p=1".into(), Fusion::Covered { dense: 0.55, power: 1.0 }),
            ("covered w=0.6 p=1".into(), Fusion::Covered { dense: 0.6, power: 1.0 }),
            ("blend k=10 w=0.5".into(), Fusion::Blend { k: 10.0, dense: 0.5 }),
            ("blend k=10 w=0.55".into(), Fusion::Blend { k: 10.0, dense: 0.55 }),
            ("blend k=10 w=0.6".into(), Fusion::Blend { k: 10.0, dense: 0.6 }),
            ("blend k=5 w=0.55".into(), Fusion::Blend { k: 5.0, dense: 0.55 }),
        ]
    }

    /// The full-text rankings over the whole vault: the request every query is sent with.
    fn full_text_variants() -> Vec<(&'static str, SearchQuery)> {
        vec![
            ("full text", SearchQuery { limit: 10, ..SearchQuery::default() }),
            (
                "full text, user language en",
                SearchQuery { limit: 10, language: Some("en".into()), ..SearchQuery::default() },
            ),
        ]
    }

    pub fn main() {
        // Filters: `quality` skips throughput and latency; `static` leaves MiniLM's vectors out.
        let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
        let speed = !only.iter().any(|o| o == "quality");
        let with_minilm = !only.iter().any(|o| o == "static" || o == "fulltext");
        let with_vectors = !only.iter().any(|o| o == "fulltext");
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
        // STATIC_MODEL=FILE measures another static model (a candidate from scripts/fit_static.py).
        let static_path = std::env::var_os("STATIC_MODEL").map_or(repo().join(STATIC_MODEL_REPO_PATH), Into::into);
        let static_model = StaticEmbedder::from_bytes(&std::fs::read(&static_path).unwrap()).unwrap();
        println!("static model: {} ({})", static_path.display(), static_model.header().id);
        let (static_vectors, secs) = time(|| texts.iter().map(|t| static_model.embed_one(t)).collect::<Vec<_>>());
        let static_rate = texts.len() as f64 / secs;
        println!("static: {static_rate:.0} chunks/s");
        results.insert("static_chunks_per_s".into(), json!(static_rate));

        // The static model's vectors searched with MiniLM's query vectors read into their space
        // (MiniLmQueries; QUERY_MAP=FILE measures another map from `vault-agent model query-map`).
        let mut models: Vec<(String, Vec<Vec<f32>>)> =
            vec![("static".into(), static_vectors.clone()), (READ_BY_MINILM.into(), static_vectors)];
        if with_minilm && speed {
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
        }
        if with_minilm {
            // ≤ 256 tokens scored below ≤ 128 in every set (BENCHMARKS.md): only 128 is kept.
            let model = minilm(128);
            let (vectors, secs) = time(|| texts.chunks(8).flat_map(|b| model.embed_texts(b)).collect::<Vec<_>>());
            println!("minilm@128: embedded the corpus in {secs:.0} s");
            models.push(("minilm@128".into(), vectors));
        }

        // ---- latency over 50,000 vectors ----------------------------------------------------
        let mut latency_rows = Vec::new();
        let shapes = [(256, Precision::F32), (256, Precision::Int8), (384, Precision::F32), (384, Precision::Int8)];
        for (dims, precision) in shapes.into_iter().filter(|_| speed) {
            let (p50, p99) = latency(50_000, dims, precision);
            println!("latency over 50,000 × {dims} {precision:?}: p50 {p50:.2} ms, p99 {p99:.2} ms");
            latency_rows
                .push(json!({"dims": dims, "precision": format!("{precision:?}"), "p50_ms": p50, "p99_ms": p99}));
        }
        results.insert("latency_50k".into(), json!(latency_rows));

        // ---- quality ------------------------------------------------------------------------
        let (mut queries, cross) = queries();
        queries.extend(known_items(&notes));
        let plain = PlainBm25::new(&notes);
        let bm25 = SearchIndex::from_notes(notes.iter().map(|(p, t)| (p.as_str(), t.as_str(), 0))).unwrap();
        let bm25_list = |q: &str| -> Vec<(String, f32)> {
            let request = SearchQuery { text: q.into(), limit: CANDIDATES, snippets: false, ..SearchQuery::default() };
            bm25.search(&request).unwrap().into_iter().map(|h| (h.path, h.score)).collect()
        };
        let bm25_lists: Vec<Vec<(String, f32)>> = queries.iter().map(|q| bm25_list(&q.text)).collect();
        let coverage: Vec<Vec<f32>> = queries
            .iter()
            .zip(&bm25_lists)
            .map(|(q, list)| bm25.coverage(&q.text, &list.iter().map(|x| x.0.as_str()).collect::<Vec<_>>()))
            .collect();
        let paths = |list: &[(String, f32)]| list.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
        let mut quality: Table = Vec::new();
        score(&mut quality, "plain BM25 (k1 1.2, b 0.75, simple words)".into(), &queries, &|i| {
            paths(&plain.search(&queries[i].text, 10))
        });
        score(&mut quality, "full text".into(), &queries, &|i| paths(&bm25_lists[i]));
        let fusions = fusions();
        let default_fusion = [("default fusion".to_string(), Fusion::default())];
        let mut cross_rows = Vec::new();
        let mut floors = Vec::new();
        for (name, vectors) in models.iter().filter(|_| with_vectors) {
            // MiniLM is loaded once per model, not once per query.
            let model = name.strip_prefix("minilm@").map(|max_tokens| minilm(max_tokens.parse().unwrap()));
            let reader = (name == READ_BY_MINILM).then(|| (minilm(QUERY_TOKENS), read_query_map()));
            let embed_query = |text: &str| -> Vec<f32> {
                match (&model, &reader) {
                    (Some(model), _) => model.embed_texts(&[text]).pop().unwrap(),
                    (None, Some((minilm, map))) => map.apply(&minilm.embed_texts(&[text]).pop().unwrap()),
                    (None, None) => static_model.embed_one(text),
                }
            };
            let query_vectors: Vec<Vec<f32>> = queries.iter().map(|q| embed_query(&q.text)).collect();
            let cross_vectors: Vec<Vec<f32>> = cross.iter().map(|q| embed_query(&q.text)).collect();
            for precision in [Precision::F32, Precision::Int8] {
                if precision == Precision::Int8 && !name.starts_with("static") {
                    continue;
                }
                let index = index_of(&chunked, vectors, name, precision);
                let dense_lists: Vec<Vec<(String, f32)>> = query_vectors
                    .iter()
                    .map(|v| index.search(v, CANDIDATES, &|_| true).into_iter().map(|h| (h.path, h.score)).collect())
                    .collect();
                if precision == Precision::F32 {
                    floors.push(floor_calibration(name, &queries, &dense_lists, &index, &embed_query));
                }
                // What hybrid_rank fuses: the vectors' hits above the model's relevance floor.
                let floor = relevance_floor(index.embedder());
                let dense_lists: Vec<Vec<(String, f32)>> =
                    dense_lists.into_iter().map(|l| l.into_iter().filter(|h| h.1 >= floor).collect()).collect();
                let suffix = if precision == Precision::Int8 { " int8" } else { "" };
                score(&mut quality, format!("{name}{suffix} (vectors)"), &queries, &|i| paths(&dense_lists[i]));
                // The f32 lists are fused every way tried; the int8 ones as the plugin ranks them.
                let tried = if precision == Precision::Int8 { &default_fusion[..] } else { &fusions[..] };
                for (fname, fusion) in tried {
                    score(&mut quality, format!("{name}{suffix} + full text, {fname}"), &queries, &|i| {
                        fuse(&bm25_lists[i], &coverage[i], &dense_lists[i], *fusion)
                            .into_iter()
                            .map(|f| f.path)
                            .collect()
                    });
                }
                if precision == Precision::Int8 {
                    continue;
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
        print_table("English notes (en/)", &queries, &quality);
        println!(
            "\nrelevance floor (cosine of the relevant notes found in the top 10, and of nonsense queries' first hit):"
        );
        for row in &floors {
            println!("  {row}");
        }
        results.insert("relevance_floor".into(), json!(floors));
        results.insert("quality".into(), table_json(&quality));

        // Full text over the whole vault (every language): the same queries and relevant notes.
        let everything = notes_below("");
        let whole = SearchIndex::from_notes(everything.iter().map(|(p, t)| (p.as_str(), t.as_str(), 0))).unwrap();
        let plain_whole = PlainBm25::new(&everything);
        let mut whole_table: Table = Vec::new();
        score(&mut whole_table, "plain BM25 (k1 1.2, b 0.75, simple words)".into(), &queries, &|i| {
            paths(&plain_whole.search(&queries[i].text, 10))
        });
        for (name, language) in full_text_variants() {
            score(&mut whole_table, name.into(), &queries, &|i| {
                let request = SearchQuery { text: queries[i].text.clone(), snippets: false, ..language.clone() };
                whole.search(&request).unwrap().into_iter().map(|h| h.path).collect()
            });
        }
        print_table(&format!("Whole vault ({} notes)", everything.len()), &queries, &whole_table);
        results.insert("quality_whole_vault".into(), table_json(&whole_table));

        // The static vectors over the whole vault: every row scored exactly, or the sketch's
        // first pass passing on a few rows to be scored exactly (VectorIndex::search_rescoring).
        if with_vectors {
            let chunked = chunk(&everything);
            let texts: Vec<&str> = chunked.chunks.iter().map(|c| c.2.as_str()).collect();
            let vectors: Vec<Vec<f32>> = texts.iter().map(|t| static_model.embed_one(t)).collect();
            let index = index_of(&chunked, &vectors, "static", Precision::Int8);
            let query_vectors: Vec<Vec<f32>> = queries.iter().map(|q| static_model.embed_one(&q.text)).collect();
            let floor = relevance_floor(index.embedder());
            let mut table: Table = Vec::new();
            let mut rows = Vec::new();
            let exact: Vec<Vec<String>> = query_vectors
                .iter()
                .map(|v| index.search_rescoring(v, CANDIDATES, &|_| true, 0).into_iter().map(|h| h.path).collect())
                .collect();
            for rescored in [0, 512, 1024, 2048, 4096] {
                let mut times = Vec::new();
                let lists: Vec<Vec<(String, f32)>> = query_vectors
                    .iter()
                    .map(|v| {
                        let (hits, secs) = time(|| index.search_rescoring(v, CANDIDATES, &|_| true, rescored));
                        times.push(secs * 1e3);
                        hits.into_iter().map(|h| (h.path, h.score)).collect()
                    })
                    .collect();
                times.sort_by(f64::total_cmp);
                // How many of the exact top 10 and top 50 notes the first pass keeps.
                let kept = |n: usize| {
                    let (mut kept, mut all) = (0, 0);
                    for (list, exact) in lists.iter().zip(&exact) {
                        let got: Vec<&String> = list.iter().take(n).map(|x| &x.0).collect();
                        kept += exact.iter().take(n).filter(|p| got.contains(p)).count();
                        all += exact.len().min(n);
                    }
                    kept as f64 / all.max(1) as f64
                };
                let name = if rescored == 0 {
                    "every row exactly".to_string()
                } else {
                    format!("sketch, {rescored} rescored")
                };
                println!(
                    "whole vault, static int8, {name}: {} rows, p50 {:.2} ms, exact top 10 kept {:.3}, top 50 {:.3}",
                    index.vector_count(),
                    percentile(&times, 0.5),
                    kept(10),
                    kept(50)
                );
                rows.push(json!({"rescored": rescored, "p50_ms": percentile(&times, 0.5), "top10_kept": kept(10), "top50_kept": kept(50)}));
                let above: Vec<Vec<String>> =
                    lists.iter().map(|l| l.iter().filter(|h| h.1 >= floor).map(|h| h.0.clone()).collect()).collect();
                score(&mut table, format!("static int8 (vectors), {name}"), &queries, &|i| above[i].clone());
            }
            // What the product answers over the whole vault (`hybrid_rank`, as the CLI's `search`
            // and the plugin call it): by meaning and hybrid, without and with the user's language,
            // the queries read by the static model and by MiniLM through the map.
            let reader = (minilm(QUERY_TOKENS), read_query_map());
            let read: Vec<Vec<f32>> = queries
                .iter()
                .map(|q| reader.1.apply(&reader.0.embed_texts(&[q.text.as_str()]).pop().unwrap()))
                .collect();
            for (queried_by, vectors) in [("static", &query_vectors), ("queries read by MiniLM", &read)] {
                for mode in [SearchMode::Semantic, SearchMode::Hybrid] {
                    for language in [None, Some("en")] {
                        let name = format!(
                            "product {}, {queried_by}{}",
                            if mode == SearchMode::Semantic { "by meaning" } else { "hybrid (default fusion)" },
                            language.map_or(String::new(), |l| format!(", user language {l}"))
                        );
                        let times = std::cell::RefCell::new(Vec::new());
                        score(&mut table, name.clone(), &queries, &|i| {
                            let query = HybridQuery {
                                text: queries[i].text.clone(),
                                mode,
                                language: language.map(Into::into),
                                ..HybridQuery::default()
                            };
                            let (hits, secs) =
                                time(|| hybrid_rank(Some(&whole), Some((&index, &vectors[i])), &query, &|_| true));
                            times.borrow_mut().push(secs * 1e3);
                            hits.unwrap().into_iter().map(|h| h.path).collect()
                        });
                        let mut times = times.into_inner();
                        times.sort_by(f64::total_cmp);
                        println!("{name}: p50 {:.2} ms (the query's vector given)", percentile(&times, 0.5));
                    }
                }
            }
            print_table(&format!("Whole vault, {} chunks", index.vector_count()), &queries, &table);
            results.insert("whole_vault_vectors".into(), json!({"first_pass": rows, "quality": table_json(&table)}));
        }

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
