//! `vault-agent chats --vault DIR [WORDS…]`: the saved chats (the plugin's history and `run`'s
//! chats), newest first, or those that said every word given, with where they said it; `--show
//! ID` prints one as Markdown, `--delete ID` deletes one.

use vault_agent::agent::{delete_chat, load_chat, ChatArchive, SavedChat, Speaker};
use vault_agent::host::{local_datetime, utc_offset_label, Clock, SystemClock};
use vault_agent::vault::Vault;
use vault_agent::{Error, Result};

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    vault: VaultArg,
    /// Print JSON: an array of {"chat": {"id","title","updatedMs","requests"}, "passage":
    /// {"turn","by","text"} or null}.
    #[arg(long)]
    json: bool,
    /// Print the saved chat ID as a note would hold it: its requests and answers, the tool calls
    /// in words.
    #[arg(long, value_name = "ID", conflicts_with_all = ["words", "json", "delete"])]
    show: Option<String>,
    /// Delete the saved chat ID and the results its tasks kept (what undoes its tasks stays
    /// until it expires).
    #[arg(long, value_name = "ID", conflicts_with_all = ["words", "json"])]
    delete: Option<String>,
    /// Words a chat must have said, each of them (in its title, a request or an answer; case
    /// and accents aside). None: every chat.
    words: Vec<String>,
}

/// The saved chat `id`, or an error that says where the ids are listed.
pub async fn saved_chat(vault: &dyn Vault, id: &str) -> Result<SavedChat> {
    match load_chat(vault, id).await {
        Err(Error::NotFound(_)) => Err(Error::NotFound(format!("no saved chat {id} (vault-agent chats lists them)"))),
        saved => saved,
    }
}

pub async fn run(args: Args) -> Result<()> {
    let vault = args.vault.open()?;
    if let Some(id) = &args.show {
        outln!("{}", saved_chat(&vault, id).await?.to_markdown().trim_end());
        return Ok(());
    }
    if let Some(id) = &args.delete {
        // A damaged file is deleted all the same: it was asked for by its id, and nothing else
        // can remove it (the list leaves it out).
        let deleted = match saved_chat(&vault, id).await {
            Ok(chat) => format!("the chat “{}”", chat.title),
            Err(Error::Invalid(why)) => format!("chat {id}, which could not be read ({why})"),
            Err(e) => return Err(e),
        };
        delete_chat(&vault, id).await?;
        eprintln!("Deleted {deleted}.");
        return Ok(());
    }
    let found = ChatArchive::load(&vault).await?.search(&args.words.join(" "));
    if args.json {
        let json = serde_json::to_string_pretty(&found).map_err(|e| Error::Invalid(e.to_string()))?;
        outln!("{json}");
        return Ok(());
    }
    if found.is_empty() {
        eprintln!("{}", if args.words.is_empty() { "no saved chats" } else { "no saved chat said that" });
        return Ok(());
    }
    for m in &found {
        // In the computer's time zone, as the user reads the time.
        let (y, mo, d, h, mi, _) = local_datetime(&SystemClock, m.chat.updated_ms);
        let zone = utc_offset_label(SystemClock.utc_offset_minutes(m.chat.updated_ms));
        let requests =
            if m.chat.requests == 1 { "1 request".to_string() } else { format!("{} requests", m.chat.requests) };
        outln!("{}  {y:04}-{mo:02}-{d:02} {h:02}:{mi:02} {zone}  {requests}: {}", m.chat.id, m.chat.title);
        if let Some(passage) = &m.passage {
            let by = match passage.by {
                Speaker::You => "You",
                Speaker::Agent => "Agent",
            };
            outln!("    {by}: {}", passage.text);
        }
    }
    eprintln!("to go on with one: vault-agent run --vault {} --chat ID", args.vault.vault.display());
    Ok(())
}
