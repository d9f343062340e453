//! `vault-agent model distill --minilm DIR --out FILE [--dimensions N]`: makes the static
//! embedding model (one int8 vector per WordPiece token) from the all-MiniLM-L6-v2 files in DIR.
//! `vault-agent model install --vault DIR [--model static|minilm] [--from DIR]`: places a model's
//! files in the vault's `.obsidian-agent/models/`, each checked against its pinned SHA-256.

use std::io::Write;
use std::path::PathBuf;

use std::rc::Rc;

use crate::vault_arg::VaultArg;
use vault_agent::cancel::CancelToken;
use vault_agent::embed::{
    distill, install_model, minilm_spec, place_model_file, static_model_spec, DistillOptions, MiniLm, PluginRelease,
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
    /// Place a model's files in <vault>/.obsidian-agent/models/, each checked against its pinned
    /// SHA-256: copied from --from DIR, or downloaded from --base-url (default: where the model
    /// is published — the static model with this version's release, from package.json).
    Install(InstallArgs),
}

#[derive(clap::Args)]
pub struct InstallArgs {
    #[command(flatten)]
    vault: VaultArg,
    /// static or minilm.
    #[arg(long, default_value = "static")]
    model: String,
    /// A folder holding the model's files (e.g. the PyPI package's model folder, or models/).
    #[arg(long)]
    from: Option<PathBuf>,
    /// Download from here instead of the model's published location.
    #[arg(long)]
    base_url: Option<String>,
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
}

fn io(op: &'static str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.display().to_string();
    move |e| Error::Io { op, path, message: e.to_string() }
}

pub async fn run(command: Command) -> vault_agent::Result<()> {
    match command {
        Command::Install(args) => {
            let vault = args.vault.open()?;
            let spec = match args.model.as_str() {
                "static" => static_model_spec(),
                "minilm" => minilm_spec(),
                other => return Err(Error::Invalid(format!("unknown model {other:?} (static or minilm)"))),
            };
            match (&args.from, args.base_url) {
                (Some(dir), _) => {
                    for f in &spec.files {
                        let path = dir.join(&f.name);
                        let bytes = std::fs::read(&path).map_err(io("read", &path))?;
                        place_model_file(&vault, &spec, f, &bytes, &path.display().to_string()).await?;
                    }
                }
                (None, mirror) => {
                    let release = PluginRelease::from_package_json(PACKAGE_JSON)?;
                    let base = spec.download_base(mirror.as_deref(), Some(&release))?;
                    let http = Rc::new(ReqwestClient::new());
                    install_model(&vault, &*http, &spec, &base, &CancelToken::new(), &mut |file, done, total| {
                        eprint!("\r{file}: {} / {} KB", done / 1024, total / 1024);
                        let _ = std::io::stderr().flush();
                    })
                    .await?;
                    eprintln!();
                }
            }
            eprintln!(
                "installed {} in {}/.obsidian-agent/models/{}",
                args.model,
                args.vault.vault.display(),
                spec.name
            );
            Ok(())
        }
        Command::Distill(args) => {
            let read = |name: &str| {
                let path = args.minilm.join(name);
                std::fs::read(&path).map_err(io("read", &path))
            };
            let text = |bytes: Vec<u8>| String::from_utf8(bytes).map_err(|_| Error::Invalid("not UTF-8".into()));
            let model =
                MiniLm::load(&read("model.safetensors")?, &text(read("vocab.txt")?)?, &text(read("config.json")?)?, 8)?;
            let options = DistillOptions {
                dimensions: args.dimensions,
                id: format!("static-minilm-l6-v2-{}@1", args.dimensions),
                ..DistillOptions::default()
            };
            let start = std::time::Instant::now();
            let embedder = distill(&model, &options, &mut |done, total| {
                eprint!("\rdistilling {done}/{total}");
                let _ = std::io::stderr().flush();
            })?;
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
