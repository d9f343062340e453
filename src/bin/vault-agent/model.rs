//! `vault-agent model distill --minilm DIR --out FILE [--dimensions N] [--corpus DIR…]`: makes the
//! static embedding model (one int8 vector per WordPiece token) from the all-MiniLM-L6-v2 files in
//! DIR, fitted to MiniLM's vectors of a corpus when one is given.
//! `vault-agent model passages --corpus DIR… [--sentences] --out FILE`: the corpus's passages as
//! JSON lines, for `scripts/fit_static.py` (the same fit on a GPU, for hundreds of thousands).
//! `vault-agent model query-map --minilm DIR --static FILE --passages FILE --out FILE [--count N]
//! [--ridge R]`: fits the map that reads MiniLM's query vectors into the static model's space.
//! `vault-agent model install --vault DIR [--model static|minilm|minilm-queries] [--from DIR…]`: places a model's
//! files in the vault's `.obsidian-agent/models/`, each checked against its pinned SHA-256.

use std::io::Write;
use std::path::PathBuf;

use std::rc::Rc;

use crate::vault_arg::VaultArg;
use vault_agent::cancel::CancelToken;
use vault_agent::embed::{
    distill, dot, featurize, install_model, local_model_specs, place_model_file, prose_passages, sentences,
    DistillOptions, DistillProgress, FitOptions, MiniLm, Passage, PluginRelease, QueryMap, QueryMapHeader,
    StaticEmbedder, MODELS_DIR, QUERY_TOKENS,
};
use vault_agent::host::ReqwestClient;
use vault_agent::Error;

/// The plugin's package metadata, read at build time: where its release (and so the static
/// model) is published. The plugin reads the same file through esbuild.
const PACKAGE_JSON: &str = include_str!("../../../package.json");

#[derive(clap::Subcommand)]
pub enum Command {
    /// Make the static model from MiniLM's files (minutes: every token goes through MiniLM).
    Distill(DistillArgs),
    /// Write a corpus's prose passages as JSON lines, for fitting elsewhere
    /// (`scripts/fit_static.py`, on a GPU: MiniLM over hundreds of thousands of passages).
    Passages(PassagesArgs),
    /// Place a model's files in <vault>/.obsidian-agent/models/, each checked against its pinned
    /// SHA-256: copied from --from DIR, or downloaded from --base-url (default: where the model
    /// is published — the static model with this version's release, from package.json).
    Install(InstallArgs),
    /// Fit the map that reads MiniLM's vectors of queries into the static model's space (least
    /// squares over passages embedded by both; minutes: every passage goes through MiniLM).
    QueryMap(QueryMapArgs),
}

#[derive(clap::Args)]
pub struct QueryMapArgs {
    /// The folder with MiniLM's model.safetensors, vocab.txt and config.json.
    #[arg(long)]
    minilm: PathBuf,
    /// The static model file (`.vam`) whose space the map reads into.
    #[arg(long = "static")]
    static_model: PathBuf,
    /// Passages as JSON lines (one string per line; `model passages` writes them).
    #[arg(long)]
    passages: PathBuf,
    /// Fit on the first this many passages; up to 500 after them measure the fit.
    #[arg(long, default_value_t = 3000)]
    count: usize,
    /// The ridge penalty per passage on the weights.
    #[arg(long, default_value_t = 1e-4)]
    ridge: f64,
    /// The map file to write (`.vaqm`).
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::Args)]
pub struct InstallArgs {
    #[command(flatten)]
    vault: VaultArg,
    /// static, minilm, or minilm-queries (MiniLM and the map that reads its queries into the
    /// static model's space).
    #[arg(long, default_value = "static")]
    model: String,
    /// A folder holding the model's files (e.g. the PyPI package's model folder, or models/);
    /// repeat for a model whose files are in several.
    #[arg(long)]
    from: Vec<PathBuf>,
    /// Download from here instead of the model's published location.
    #[arg(long)]
    base_url: Option<String>,
}

#[derive(clap::Args)]
pub struct PassagesArgs {
    /// Folders of Markdown files (repeat for more).
    #[arg(long, required = true)]
    corpus: Vec<PathBuf>,
    /// The JSON-lines file to write (one string per line).
    #[arg(long)]
    out: PathBuf,
    /// At most this many paragraphs (spread evenly over the corpus).
    #[arg(long, default_value_t = 1_000_000)]
    passages: usize,
    /// Also write each paragraph's sentences and each heading on their own: searches are short.
    #[arg(long)]
    sentences: bool,
}

#[derive(clap::Args)]
pub struct DistillArgs {
    /// The folder with model.safetensors, vocab.txt and config.json.
    #[arg(long)]
    minilm: PathBuf,
    /// The model file to write.
    #[arg(long)]
    out: PathBuf,
    /// Dimensions kept (PCA).
    #[arg(long, default_value_t = 256)]
    dimensions: usize,
    /// Fit the rows to MiniLM's vectors of the prose in this folder's Markdown files
    /// (tokenlearn-style; repeat for more folders). Without it, the rows are distilled only.
    #[arg(long)]
    corpus: Vec<PathBuf>,
    /// At most this many passages from the corpus (spread evenly over it).
    #[arg(long, default_value_t = 12_000)]
    passages: usize,
    /// Keep MiniLM's vectors of the corpus in this file, and read them from it when it exists
    /// (featurizing is the slow part: about 20 passages per second per core).
    #[arg(long)]
    features: Option<PathBuf>,
    /// Passes of fitting (the pass with the best held-out cosine is kept).
    #[arg(long, default_value_t = 12)]
    epochs: usize,
    /// Adam's step, as a share of the rows' root-mean-square entry.
    #[arg(long, default_value_t = 0.01)]
    learning_rate: f32,
    /// Pull of each row towards its distilled value.
    #[arg(long, default_value_t = 0.0)]
    l2: f32,
}

fn io(op: &'static str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.display().to_string();
    move |e| Error::Io { op, path, message: e.to_string() }
}

/// `model query-map`: see [`QueryMapArgs`].
fn query_map(args: &QueryMapArgs) -> vault_agent::Result<()> {
    let read = |path: &std::path::Path| std::fs::read(path).map_err(io("read", path));
    // Cut as queries are for MiniLmQueries (and as the static model was fitted).
    let minilm = MiniLm::load_dir(&args.minilm, QUERY_TOKENS)?;
    let notes = StaticEmbedder::from_vec(read(&args.static_model)?)?;
    let passages: Vec<String> = String::from_utf8(read(&args.passages)?)
        .map_err(|_| Error::Invalid(format!("{} is not UTF-8", args.passages.display())))?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| Error::Invalid(format!("{}: {e}", args.passages.display()))))
        .collect::<vault_agent::Result<_>>()?;
    let (fit, held) = passages.split_at(args.count.min(passages.len()));
    let start = std::time::Instant::now();
    let mut pairs = Vec::with_capacity(fit.len());
    for batch in fit.chunks(8) {
        let texts: Vec<&str> = batch.iter().map(String::as_str).collect();
        pairs.extend(minilm.embed_texts(&texts).into_iter().zip(texts.iter().map(|t| notes.embed_one(t))));
        eprint!("\rembedded {} / {} passages", pairs.len(), fit.len());
        let _ = std::io::stderr().flush();
    }
    eprintln!(" in {:.0} s", start.elapsed().as_secs_f64());
    let header = QueryMapHeader {
        from: vault_agent::embed::Embedder::id(&minilm).to_string(),
        to: notes.header().id.clone(),
        inputs: vault_agent::embed::Embedder::dimensions(&minilm),
        outputs: notes.header().dimensions,
        source: format!(
            "least squares over {} passages of {}, ridge {}",
            fit.len(),
            args.passages
                .file_name()
                .map_or_else(|| args.passages.display().to_string(), |n| n.to_string_lossy().into()),
            args.ridge
        ),
    };
    let map = QueryMap::fit(header, &pairs, args.ridge)?;
    let held: Vec<f32> = held
        .iter()
        .take(500)
        .map(|t| dot(&map.apply(&minilm.embed_texts(&[t]).pop().unwrap_or_default()), &notes.embed_one(t)))
        .collect();
    if !held.is_empty() {
        eprintln!(
            "held-out passages: mean cosine of the map's vector to the static model's {:.3} ({} passages)",
            held.iter().sum::<f32>() / held.len() as f32,
            held.len()
        );
    }
    std::fs::write(&args.out, map.to_bytes()).map_err(io("write", &args.out))?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

pub async fn run(command: Command) -> vault_agent::Result<()> {
    match command {
        Command::Install(args) => {
            let vault = args.vault.open()?;
            for spec in local_model_specs(&args.model)? {
                if args.from.is_empty() {
                    let release = PluginRelease::from_package_json(PACKAGE_JSON)?;
                    let base = spec.download_base(args.base_url.as_deref(), Some(&release))?;
                    let http = Rc::new(ReqwestClient::new());
                    install_model(&vault, &*http, &spec, &base, &CancelToken::new(), &mut |file, done, total| {
                        eprint!("\r{file}: {} / {} KB", done / 1024, total / 1024);
                        let _ = std::io::stderr().flush();
                    })
                    .await?;
                    eprintln!();
                } else {
                    for f in &spec.files {
                        // The first folder given that holds it.
                        let path = args.from.iter().map(|dir| dir.join(&f.name)).find(|p| p.exists());
                        let path = path.unwrap_or_else(|| args.from[0].join(&f.name));
                        let bytes = std::fs::read(&path).map_err(io("read", &path))?;
                        place_model_file(&vault, &spec, f, &bytes, &path.display().to_string()).await?;
                    }
                }
                eprintln!("installed {} in {}/{MODELS_DIR}/{}", args.model, args.vault.vault.display(), spec.name);
            }
            Ok(())
        }
        Command::QueryMap(args) => query_map(&args),
        Command::Passages(args) => {
            let (texts, files) = corpus_paragraphs(&args.corpus, args.passages)?;
            let mut out = String::new();
            let mut lines = 0usize;
            let mut headings = std::collections::HashSet::new();
            for text in &texts {
                let mut write = |t: &str| {
                    out.push_str(&serde_json::Value::from(t).to_string());
                    out.push('\n');
                    lines += 1;
                };
                write(text);
                if args.sentences {
                    let (heading, body) = text.split_once('\n').unwrap_or(("", text));
                    if !heading.is_empty() && headings.insert(heading.to_string()) {
                        write(heading);
                    }
                    let parts = sentences(body, 20);
                    if parts.len() > 1 {
                        parts.iter().for_each(|s| write(s));
                    }
                }
            }
            std::fs::write(&args.out, out).map_err(io("write", &args.out))?;
            eprintln!("wrote {lines} passages ({} paragraphs of {files} files) to {}", texts.len(), args.out.display());
            Ok(())
        }
        Command::Distill(args) => {
            let model = MiniLm::load_dir(&args.minilm, FIT_MAX_TOKENS)?;
            let start = std::time::Instant::now();
            let corpus = corpus_features(&model, &args)?;
            // `@1` is the distilled model; `@2`, the one shipped, was fitted on a GPU
            // (scripts/fit_static.py), so a CPU fit gets an id of its own.
            let version = if corpus.is_empty() { "1" } else { "2-cpu" };
            let options = DistillOptions {
                dimensions: args.dimensions,
                id: format!("static-minilm-l6-v2-{}@{version}", args.dimensions),
                fit: FitOptions {
                    epochs: args.epochs,
                    learning_rate: args.learning_rate,
                    l2: args.l2,
                    ..FitOptions::default()
                },
                ..DistillOptions::default()
            };
            let (embedder, report) = distill(&model, &options, &corpus, &mut |p| {
                match p {
                    DistillProgress::Tokens { done, total } => eprint!("\rdistilling {done}/{total}"),
                    DistillProgress::Pass { pass, score } => {
                        eprint!("\rfitting: pass {pass}, held-out cosine {score:.4}\n")
                    }
                }
                let _ = std::io::stderr().flush();
            })?;
            if let Some(report) = report {
                eprintln!(
                    "\rfitted: held-out cosine {:.4} before, {:?} after each pass; kept pass {}",
                    report.before, report.after_pass, report.kept_pass
                );
            }
            let bytes = embedder.to_bytes();
            std::fs::write(&args.out, &bytes).map_err(io("write", &args.out))?;
            eprintln!(
                "\rwrote {} ({} bytes, sha256 {}) in {:.1} s",
                args.out.display(),
                bytes.len(),
                vault_agent::embed::sha256_hex(&bytes),
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
    }
}

/// MiniLM reads each passage up to this many tokens, as the plugin's MiniLM does.
const FIT_MAX_TOKENS: usize = 128;

/// MiniLM's vectors of the corpus's passages: read from `--features` when that file exists,
/// else made (on every core) and written there.
fn corpus_features(model: &MiniLm, args: &DistillArgs) -> vault_agent::Result<Vec<Passage>> {
    if args.corpus.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(path) = args.features.as_ref().filter(|p| p.exists()) {
        let bytes = std::fs::read(path).map_err(io("read", path))?;
        let passages = Passage::read_all(&bytes)?;
        eprintln!("read {} passages' vectors from {}", passages.len(), path.display());
        return Ok(passages);
    }
    let (texts, files) = corpus_paragraphs(&args.corpus, args.passages)?;
    eprintln!("featurizing {} passages from {files} files", texts.len());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = texts.len().div_ceil(threads.max(1)).max(1);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let passages: Vec<Passage> = std::thread::scope(|scope| {
        let handles: Vec<_> = texts
            .chunks(share)
            .map(|part| {
                let done = &done;
                let total = texts.len();
                scope.spawn(move || {
                    featurize(model, part, 8, &mut |_, _| {
                        let now = done.fetch_add(8, std::sync::atomic::Ordering::Relaxed) + 8;
                        if now % 400 < 8 {
                            eprint!("\rfeaturizing {}/{total}", now.min(total));
                        }
                    })
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    eprintln!();
    if let Some(path) = &args.features {
        std::fs::write(path, Passage::write_all(&passages)).map_err(io("write", path))?;
    }
    Ok(passages)
}

/// Up to `max` prose paragraphs of the Markdown files under `dirs`, spread evenly over them (so
/// no one source fills the quota), and how many files were read.
fn corpus_paragraphs(dirs: &[PathBuf], max: usize) -> vault_agent::Result<(Vec<String>, usize)> {
    let mut files = Vec::new();
    for dir in dirs {
        markdown_files(dir, &mut files)?;
    }
    files.sort();
    let mut texts = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).map_err(io("read", path))?;
        texts.extend(prose_passages(&String::from_utf8_lossy(&bytes), 80, 1_500));
    }
    let step = (texts.len() as f64 / max.max(1) as f64).max(1.0);
    let picked = (0..max.min(texts.len())).map(|i| texts[(i as f64 * step) as usize].clone()).collect();
    Ok((picked, files.len()))
}

fn markdown_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) -> vault_agent::Result<()> {
    for entry in std::fs::read_dir(dir).map_err(io("list", dir))? {
        let path = entry.map_err(io("list", dir))?.path();
        if path.is_dir() {
            markdown_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    Ok(())
}
