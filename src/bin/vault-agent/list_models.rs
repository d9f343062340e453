//! `vault-agent list-models --provider anthropic|openai|gemini|mistral|deepseek|xai|groq|azure
//! [--base-url URL] [--json]`: the chat models the provider's server has, one id per line (with
//! the server's name, the context window, the price per million tokens and "no tool calling"
//! after tabs, where known), or the list as JSON.

use vault_agent::cancel::CancelToken;
use vault_agent::host::ReqwestClient;
use vault_agent::provider::{list_models, DEFAULT_MAX_TOKENS};
use vault_agent::{Error, Result};

use crate::provider_args::{Provider, ProviderArgs};

#[derive(clap::Args)]
pub struct Args {
    /// Which API to ask.
    #[arg(long, value_enum)]
    provider: Provider,
    /// Where the API lives, as for `chat`.
    #[arg(long)]
    base_url: Option<String>,
    /// The API key; defaults to the provider's variable, as for `chat`.
    #[arg(long)]
    api_key: Option<String>,
    /// A header sent with the request, as for `chat` (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Print `{"models": [{"id", "name"?, "contextWindow"?, "price"?, "tools"?}]}`.
    #[arg(long)]
    json: bool,
}

pub async fn run(args: Args) -> Result<()> {
    let config = ProviderArgs::new(args.provider, String::new(), args.base_url, args.api_key, DEFAULT_MAX_TOKENS)
        .with_headers(args.headers)
        .config()?;
    let list = list_models(&config, &ReqwestClient::new(), &CancelToken::new()).await?;
    if let Some(problem) = list.problem {
        let detail = if problem.detail.is_empty() { String::new() } else { format!(" ({})", problem.detail) };
        return Err(Error::Invalid(format!("the models could not be listed: {}{detail}", problem.message)));
    }
    if args.json {
        let json = serde_json::to_string_pretty(&serde_json::json!({ "models": list.models }))
            .map_err(|e| Error::Invalid(e.to_string()))?;
        crate::out::write(&format!("{json}\n"));
        return Ok(());
    }
    for model in &list.models {
        let mut line = model.id.clone();
        if let Some(name) = &model.name {
            line.push('\t');
            line.push_str(name);
        }
        if let Some(window) = model.context_window {
            line.push_str(&format!("\t{window} tokens"));
        }
        match model.price {
            Some(price) if price.input == 0.0 && price.output == 0.0 => line.push_str("\tfree"),
            Some(price) => line.push_str(&format!("\t${} / ${} per M tokens", price.input, price.output)),
            None => {}
        }
        if model.tools == Some(false) {
            line.push_str("\tno tool calling");
        }
        crate::out::write(&format!("{line}\n"));
    }
    Ok(())
}
