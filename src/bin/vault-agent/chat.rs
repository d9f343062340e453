//! `vault-agent chat --provider anthropic|openai --base-url URL --model M "prompt"`: one model
//! call, its text streamed to stdout as it arrives.

use std::io::Write;
use std::rc::Rc;

use futures::StreamExt;
use vault_agent::cancel::CancelToken;
use vault_agent::host::{ReqwestClient, SystemClock};
use vault_agent::protocol::{ErrorKind, Message, ModelRequest, StreamEvent, SystemPart};
use vault_agent::provider::{build, ProviderConfig, ProviderKind, OPENAI_BASE_URL};
use vault_agent::{Error, Result};

/// The APIs `chat` can talk to.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Provider {
    /// The Anthropic Messages API (key: --api-key or ANTHROPIC_API_KEY).
    Anthropic,
    /// OpenAI Chat Completions, or any compatible server by --base-url (key: --api-key or
    /// OPENAI_API_KEY; optional for local servers).
    Openai,
}

#[derive(clap::Args)]
pub struct Args {
    /// Which API to call.
    #[arg(long, value_enum)]
    provider: Provider,
    /// The model id.
    #[arg(long)]
    model: String,
    /// Where the API lives (Anthropic: the URL before /v1/messages; OpenAI-compatible: the URL
    /// before /chat/completions, e.g. http://localhost:11434/v1 for Ollama).
    #[arg(long)]
    base_url: Option<String>,
    /// The API key; defaults to $ANTHROPIC_API_KEY or $OPENAI_API_KEY.
    #[arg(long)]
    api_key: Option<String>,
    /// A system prompt.
    #[arg(long)]
    system: Option<String>,
    /// The output limit in tokens.
    #[arg(long, default_value_t = vault_agent::provider::DEFAULT_MAX_TOKENS)]
    max_tokens: u32,
    /// What to ask.
    prompt: String,
}

pub async fn run(args: Args) -> Result<()> {
    let (kind, env_key) = match args.provider {
        Provider::Anthropic => (ProviderKind::Anthropic, "ANTHROPIC_API_KEY"),
        Provider::Openai => {
            // OpenAI itself, or a compatible server (which sends max_tokens and may need no key).
            let official = args.base_url.as_deref().is_none_or(|url| url.trim_end_matches('/') == OPENAI_BASE_URL);
            (if official { ProviderKind::OpenAi } else { ProviderKind::OpenAiCompatible }, "OPENAI_API_KEY")
        }
    };
    let mut config = ProviderConfig::new(kind, &args.model);
    config.base_url = args.base_url;
    config.api_key = args.api_key.or_else(|| std::env::var(env_key).ok()).filter(|k| !k.is_empty());
    config.max_tokens = args.max_tokens;
    if kind == ProviderKind::Anthropic && config.api_key.is_none() {
        return Err(Error::Invalid(format!("Anthropic needs an API key: pass --api-key or set {env_key}")));
    }
    if kind == ProviderKind::OpenAi && config.api_key.is_none() {
        return Err(Error::Invalid(format!("OpenAI needs an API key: pass --api-key or set {env_key}")));
    }
    let provider = build(&config, Rc::new(ReqwestClient::new()), Rc::new(SystemClock))?;
    let request = ModelRequest {
        system: args.system.map(|text| vec![SystemPart { text, cache_breakpoint: true }]).unwrap_or_default(),
        messages: vec![Message::user(args.prompt)],
        tools: Vec::new(),
        max_tokens: config.max_tokens,
        thinking_budget: None,
        temperature: None,
        tool_choice: Default::default(),
    };

    let cancel = CancelToken::new();
    let mut stream = provider.stream(&request, &cancel).await;
    let mut stdout = std::io::stdout().lock();
    let mut wrote_text = false;
    let write = |out: &mut std::io::StdoutLock, text: &str| {
        out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| Error::Io {
            op: "write",
            path: "stdout".into(),
            message: e.to_string(),
        })
    };
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::TextDelta { text } => {
                write(&mut stdout, &text)?;
                wrote_text = true;
            }
            StreamEvent::Retry { attempt, max_attempts, delay_ms, error } => {
                eprintln!(
                    "vault-agent: {error}; retrying in {:.1} s (attempt {} of {max_attempts})",
                    delay_ms as f64 / 1000.0,
                    attempt + 1
                );
            }
            StreamEvent::Error { error } => {
                if wrote_text {
                    write(&mut stdout, "\n")?;
                }
                return Err(Error::Provider(error));
            }
            StreamEvent::Done { .. } => {
                if wrote_text {
                    write(&mut stdout, "\n")?;
                }
                return Ok(());
            }
            _ => {}
        }
    }
    Err(Error::Provider(vault_agent::protocol::ProviderError::new(
        ErrorKind::Protocol,
        "the response ended without a result",
    )))
}
