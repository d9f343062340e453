//! `vault-agent chat --provider anthropic|openai --base-url URL --model M "prompt"`: one model
//! call, its text streamed to stdout as it arrives.

use std::rc::Rc;

use futures::StreamExt;
use vault_agent::cancel::CancelToken;
use vault_agent::host::{ReqwestClient, SystemClock};
use vault_agent::protocol::{ErrorKind, Message, ModelRequest, StreamEvent, SystemPart};
use vault_agent::provider::build;

use crate::provider_args::ProviderArgs;
use vault_agent::{Error, Result};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    provider: ProviderArgs,
    /// A system prompt.
    #[arg(long)]
    system: Option<String>,
    /// What to ask.
    prompt: String,
}

pub async fn run(args: Args) -> Result<()> {
    let config = args.provider.config()?;
    let provider = build(&config, Rc::new(ReqwestClient::new()), Rc::new(SystemClock))?;
    let request = ModelRequest {
        system: args.system.map(|text| vec![SystemPart { text, cache_breakpoint: true }]).unwrap_or_default(),
        messages: vec![Message::user(args.prompt)],
        tools: Vec::new(),
        max_tokens: config.max_tokens,
        thinking_budget: None,
        temperature: None,
        tool_choice: Default::default(),
        model: None,
    };

    let cancel = CancelToken::new();
    let mut stream = provider.stream(&request, &cancel).await;
    let mut wrote_text = false;
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::TextDelta { text } => {
                crate::out::write(&text);
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
                    crate::out::write("\n");
                }
                return Err(Error::Provider(error));
            }
            StreamEvent::Done { .. } => {
                if wrote_text {
                    crate::out::write("\n");
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
