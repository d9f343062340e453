//! `vault-agent run`, `undo` and `checkpoints`: the real binary over a folder, against a local
//! server speaking the OpenAI streaming protocol.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use crate::local_server::{serve, serve_as_ollama, Answer};

/// An OpenAI-style event stream: `text` in pieces, then `calls` as `(name, arguments)`.
fn turn(text: &str, calls: &[(&str, Value)]) -> Answer {
    let chunk = |delta: Value, finish: Value| {
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let mut parts: Vec<String> = text
        .chars()
        .collect::<Vec<_>>()
        .chunks(5)
        .map(|c| chunk(json!({"content": c.iter().collect::<String>()}), Value::Null))
        .collect();
    for (i, (name, args)) in calls.iter().enumerate() {
        let call = json!({"index": i, "id": format!("call_{i}"), "type": "function",
            "function": {"name": name, "arguments": args.to_string()}});
        parts.push(chunk(json!({"tool_calls": [call]}), Value::Null));
    }
    let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
    parts.push(chunk(json!({}), json!(finish)));
    parts.push(format!(
        "data: {}\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 30}})
    ));
    parts.push("data: [DONE]\n\n".into());
    Answer::Sse { parts, gate: None }
}

fn vault_agent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vault-agent"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `vault-agent run` against the scripted server, without the end-of-task memory extraction
/// (whose request the scripts do not answer); [`run_extracting`] keeps it.
fn run(vault: &Path, base: &str, extra: &[&str], task: &str) -> Output {
    run_with(vault, base, "local", &[&["--no-memory-extraction"], extra].concat(), task)
}

fn run_extracting(vault: &Path, base: &str, extra: &[&str], task: &str) -> Output {
    run_with(vault, base, "local", extra, task)
}

fn run_with(vault: &Path, base: &str, model: &str, extra: &[&str], task: &str) -> Output {
    let dir = vault.to_str().unwrap();
    let url = format!("{base}/v1");
    let mut args = vec!["run", "--vault", dir, "--provider", "openai", "--base-url", &url, "--model", model];
    args.extend_from_slice(extra);
    args.push(task);
    vault_agent(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn sample_vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("Projects")).unwrap();
    std::fs::write(dir.path().join("Projects/Plan.md"), "# Plan\n\n- ship search\n").unwrap();
    std::fs::write(dir.path().join("Inbox.md"), "buy milk\n").unwrap();
    dir
}

#[test]
fn run_does_a_task_then_undo_puts_the_vault_back() {
    let vault = sample_vault();
    let (base, seen) = serve(vec![
        turn("Let me look.", &[("read_file", json!({"path": "Projects/Plan.md"})), ("list_files", json!({}))]),
        turn(
            "",
            &[(
                "edit_file",
                json!({"path": "Projects/Plan.md", "old_string": "- ship search", "new_string": "- ship search\n- ship undo"}),
            )],
        ),
        turn("", &[("attempt_completion", json!({"result": "Added *ship undo* to [[Plan]]."}))]),
    ]);
    let output = run(vault.path(), &base, &["--approve", "read,write"], "add undo to my plan");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.starts_with("Let me look.\n"), "streamed text first: {stdout}");
    assert!(stdout.trim_end().ends_with("Added *ship undo* to [[Plan]]."), "{stdout}");
    let tool_lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with('✓') || l.starts_with('✗')).collect();
    assert_eq!(tool_lines.len(), 4, "one line per tool call: {stderr}");
    assert!(
        tool_lines[0].starts_with("✓ read_file Projects/Plan.md") && tool_lines[0].ends_with("lines 1-3 of 3"),
        "{stderr}"
    );
    assert!(tool_lines[1].ends_with("2 entries in the vault root"), "{stderr}");
    assert!(tool_lines[2].starts_with("✓ edit_file Projects/Plan.md"), "{stderr}");
    assert!(stderr.contains("undo with: vault-agent undo --vault"), "{stderr}");
    let plan = std::fs::read_to_string(vault.path().join("Projects/Plan.md")).unwrap();
    assert_eq!(plan, "# Plan\n\n- ship search\n- ship undo\n");

    // The model saw the tools, the vault's name and note count, and the tool results.
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    let first: Value = serde_json::from_str(&seen[0].body).unwrap();
    let tools: Vec<&str> =
        first["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert!(tools.contains(&"edit_file") && tools.contains(&"attempt_completion"), "{tools:?}");
    assert!(first["messages"][0]["content"].as_str().unwrap().contains("Notes: 2"));
    let second: Value = serde_json::from_str(&seen[1].body).unwrap();
    assert!(second.to_string().contains("ship search"), "the read result went back to the model");
    drop(seen);

    let dir = vault.path().to_str().unwrap();
    let listed = vault_agent(&["checkpoints", "--vault", dir]);
    assert!(text(&listed.stdout).contains("1 paths: Projects/Plan.md"), "{}", text(&listed.stdout));
    let undone = vault_agent(&["undo", "--vault", dir]);
    assert!(undone.status.success(), "{}", text(&undone.stderr));
    assert!(text(&undone.stdout).contains("restored Projects/Plan.md"));
    assert_eq!(std::fs::read_to_string(vault.path().join("Projects/Plan.md")).unwrap(), "# Plan\n\n- ship search\n");
    assert!(!vault.path().join(".obsidian-agent/tmp").read_dir().is_ok_and(|mut d| d.next().is_some()));
}

/// `vault-agent run` without a task (a chat) over `vault` and the model at `base`, `input` its
/// lines.
fn chat(vault: &std::path::Path, base: &str, args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    let (dir, url) = (vault.to_str().unwrap(), format!("{base}/v1"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_vault-agent"))
        .args(["run", "--vault", dir, "--provider", "openai", "--base-url", &url, "--model", "local"])
        .arg("--no-memory-extraction")
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Without a task, `run` is a chat: each line of the input a message, answered in turn over the
/// history so far, and the chat saved where the plugin's history lists it.
#[test]
fn run_without_a_task_chats_a_line_at_a_time_and_saves_the_chat() {
    let vault = sample_vault();
    let (base, seen) = serve(vec![
        turn("", &[("read_file", json!({"path": "Projects/Plan.md"}))]),
        turn("The plan is to ship search.", &[]),
        turn("Nothing else is planned.", &[]),
    ]);
    // Between the two messages, a note attached to the second (and a path that cannot be).
    let input = "what is my plan?\n/attach Nowhere.md\n/attach Inbox.md\nanything else?\n\nnot sent\n";
    let output = chat(vault.path(), &base, &[], input);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stdout, "The plan is to ship search.\nNothing else is planned.\n");
    assert!(stderr.contains("✓ read_file Projects/Plan.md"), "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("cannot attach Nowhere.md: ")), "{stderr}");
    assert!(stderr.lines().any(|l| l == "attached to your next message: Inbox.md"), "{stderr}");
    // The second message went with the first exchange; the line after the empty one was not sent.
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    let last: Value = serde_json::from_str(&seen[2].body).unwrap();
    let said: Vec<String> =
        last["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str().map(str::to_string)).collect();
    assert!(
        said.iter().any(|t| t.contains("what is my plan?"))
            && said.iter().any(|t| t.contains("The plan is to ship search.")),
        "{said:?}"
    );
    let asked = said.last().unwrap();
    assert!(asked.contains("anything else?") && asked.contains("<note path=\"Inbox.md\">\nbuy milk"), "{asked}");
    assert!(!said.iter().any(|t| t.starts_with("/attach")), "the commands are not messages: {said:?}");
    let first: Value = serde_json::from_str(&seen[0].body).unwrap();
    assert!(!first.to_string().contains("buy milk"), "the first message went without it");
    drop(seen);
    let chats: Vec<_> = std::fs::read_dir(vault.path().join(".obsidian-agent/chats")).unwrap().flatten().collect();
    assert_eq!(chats.len(), 1, "one saved chat");
    let saved = std::fs::read_to_string(chats[0].path()).unwrap();
    assert!(saved.contains("what is my plan?") && saved.contains("Nothing else is planned."), "{saved}");
}

/// `vault-agent chats` lists the saved chats, newest first, and finds one by what was said in it;
/// `run --chat ID` goes on with it, its history the model's.
#[test]
fn chats_finds_a_saved_chat_by_what_it_said_and_run_goes_on_with_it() {
    let vault = sample_vault();
    let dir = vault.path().to_str().unwrap();
    let (base, seen) = serve(vec![
        turn("The plan is to ship search.", &[]),
        turn("Buy milk.", &[]),
        turn("Then semantic snippets.", &[]),
    ]);
    assert!(chat(vault.path(), &base, &[], "what is my plan?\n").status.success());
    assert!(chat(vault.path(), &base, &[], "what is in my inbox?\n").status.success());

    let listed = text(&vault_agent(&["chats", "--vault", dir]).stdout);
    let titles: Vec<&str> = listed.lines().map(|l| l.split_once(": ").unwrap().1).collect();
    assert_eq!(titles, ["what is in my inbox?", "what is my plan?"], "{listed}");

    // Words of an answer, in any case: the chat that said them, and where.
    let found = vault_agent(&["chats", "--vault", dir, "SHIP", "search"]);
    let out = text(&found.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].ends_with("  1 request: what is my plan?"), "{out}");
    assert_eq!(lines[1], "    Agent: The plan is to **ship** **search**.");
    assert!(text(&found.stderr).contains("vault-agent run --vault"), "how to go on with it");
    let none = vault_agent(&["chats", "--vault", dir, "croissant"]);
    assert_eq!((text(&none.stdout).as_str(), text(&none.stderr).trim()), ("", "no saved chat said that"));

    // Going on with it: the model reads its history, and the chat keeps the new exchange.
    let id = lines[0].split_whitespace().next().unwrap();
    let went_on = chat(vault.path(), &base, &["--chat", id], "and after that?\n");
    let stderr = text(&went_on.stderr);
    assert!(went_on.status.success(), "{stderr}");
    assert!(stderr.contains("Going on with the chat “what is my plan?” (1 earlier request)."), "{stderr}");
    assert_eq!(text(&went_on.stdout), "Then semantic snippets.\n");
    let asked = seen.lock().unwrap()[2].body.clone();
    assert!(asked.contains("The plan is to ship search.") && asked.contains("and after that?"), "{asked}");
    assert!(!asked.contains("Buy milk"), "not the other chat's: {asked}");
    let json: Value = serde_json::from_slice(&vault_agent(&["chats", "--vault", dir, "--json"]).stdout).unwrap();
    assert_eq!(json[0]["chat"]["id"], json!(id), "the chat went on is the newest");
    assert_eq!(json[0]["chat"]["requests"], json!(2));
    assert_eq!(json.as_array().unwrap().len(), 2, "no new chat");

    // Shown as a note would hold it, then deleted: the list no longer has it.
    let shown = text(&vault_agent(&["chats", "--vault", dir, "--show", id]).stdout);
    for said in ["what is my plan?", "The plan is to ship search.", "and after that?", "Then semantic snippets."] {
        assert!(shown.contains(said), "{said} in {shown}");
    }
    let deleted = vault_agent(&["chats", "--vault", dir, "--delete", id]);
    assert!(deleted.status.success());
    assert_eq!(text(&deleted.stderr).trim(), "Deleted the chat “what is my plan?”.");
    let json: Value = serde_json::from_slice(&vault_agent(&["chats", "--vault", dir, "--json"]).stdout).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 1);
    assert_ne!(json[0]["chat"]["id"], json!(id));
    let again = vault_agent(&["chats", "--vault", dir, "--delete", id]);
    assert!(!again.status.success());
    assert!(text(&again.stderr).contains(&format!("no saved chat {id} (vault-agent chats lists them)")));
    // A damaged chat file, which no list shows, is deleted by its id all the same.
    let damaged = vault.path().join(".obsidian-agent/chats/20200101-000000.json");
    std::fs::write(&damaged, "{ not json").unwrap();
    let deleted = vault_agent(&["chats", "--vault", dir, "--delete", "20200101-000000"]);
    assert!(deleted.status.success(), "{}", text(&deleted.stderr));
    assert!(text(&deleted.stderr).starts_with("Deleted chat 20200101-000000, which could not be read (saved chat"));
    assert!(!damaged.exists());

    // A chat that is not saved: said, before anything is asked.
    let missing = chat(vault.path(), &base, &["--chat", "20200101-000000"], "hello\n");
    assert!(!missing.status.success());
    assert!(text(&missing.stderr).contains("no saved chat 20200101-000000 (vault-agent chats lists them)"));
    assert_eq!(seen.lock().unwrap().len(), 3);
}

/// In a chat, `/undo` puts back what the chat's last task that changed notes did, and the saved
/// chat records it; with nothing left to undo it says so.
#[test]
fn a_chat_undoes_its_last_changes_with_a_line() {
    let vault = sample_vault();
    let (base, _seen) = serve(vec![
        turn("", &[("append_to_file", json!({"path": "Inbox.md", "content": "call mom\n"}))]),
        turn("Added it.", &[]),
    ]);
    let input = "add call mom to my inbox\n/undo\n/undo\n";
    let output = chat(vault.path(), &base, &["--approve", "read,write", "--no-fast-path"], input);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stdout, "Added it.\n");
    assert!(stderr.lines().any(|l| l == "restored Inbox.md"), "{stderr}");
    let undid = stderr.lines().find(|l| l.starts_with("undid task ")).expect(&stderr);
    assert!(undid.contains("to redo it: vault-agent redo --vault"), "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("nothing to undo: ")), "the second /undo: {stderr}");
    assert_eq!(std::fs::read_to_string(vault.path().join("Inbox.md")).unwrap(), "buy milk\n");
    let chats: Vec<_> = std::fs::read_dir(vault.path().join(".obsidian-agent/chats")).unwrap().flatten().collect();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(chats[0].path()).unwrap()).unwrap();
    assert_eq!(saved["tasks"][0]["undone"], json!(true), "the chat's history shows the task undone");
}

#[test]
fn run_hands_work_to_a_sub_task_and_one_undo_reverts_its_write() {
    let vault = sample_vault();
    let (base, seen) = serve(vec![
        turn("", &[("new_task", json!({"mode": "agent", "message": "Add 'call mom' to Inbox.md."}))]),
        turn("On it.", &[("append_to_file", json!({"path": "Inbox.md", "content": "call mom\n"}))]),
        turn("Added it.", &[]),
        turn("The sub-task added *call mom* to the inbox.", &[]),
    ]);
    let output = run(vault.path(), &base, &["--approve", "read,write"], "add call mom to my inbox");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    // Only the user's task answers on stdout; the sub-task's steps are indented on stderr.
    assert_eq!(stdout.trim_end(), "The sub-task added *call mom* to the inbox.", "{stderr}");
    let sub = stderr.lines().find(|l| l.starts_with("→ sub-task ")).expect(&stderr);
    assert!(sub.ends_with("(agent mode)"), "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("  ✓ append_to_file Inbox.md")), "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("← sub-task ") && l.ends_with(": Answered.")), "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("✓ new_task")), "{stderr}");
    // Four model calls of 120 input tokens each: the sub-task's two count in the task's usage.
    assert!(stderr.contains(": 2 steps, 1 tool calls (0 failed), 480 tokens in"), "{stderr}");
    assert_eq!(std::fs::read_to_string(vault.path().join("Inbox.md")).unwrap(), "buy milk\ncall mom\n");
    let seen = seen.lock().unwrap();
    let child: Value = serde_json::from_str(&seen[1].body).unwrap();
    let messages = child["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "the system prompt and the sub-task's message: {messages:?}");
    assert_eq!(messages[1]["content"], "Add 'call mom' to Inbox.md.");
    drop(seen);

    let undone = vault_agent(&["undo", "--vault", vault.path().to_str().unwrap()]);
    assert!(undone.status.success(), "{}", text(&undone.stderr));
    assert_eq!(std::fs::read_to_string(vault.path().join("Inbox.md")).unwrap(), "buy milk\n");
}

#[test]
fn without_a_terminal_an_unapproved_write_is_denied_and_run_fails_clearly() {
    let vault = sample_vault();
    let (base, _) = serve(vec![turn("", &[("write_file", json!({"path": "New.md", "content": "x"}))])]);
    let output = run(vault.path(), &base, &[], "make a note");
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("denied: Write New.md (needs write approval"), "{stderr}");
    assert!(stderr.contains("pass --approve read,write,delete or --yes"), "{stderr}");
    assert!(!vault.path().join("New.md").exists());
}

#[test]
fn a_provider_error_ends_run_with_a_clear_message() {
    let vault = sample_vault();
    let body =
        r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let (base, _) = serve(vec![Answer::Status(401, body.into())]);
    let output = run(vault.path(), &base, &["--yes"], "hi");
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("vault-agent: Failed: Incorrect API key"), "{stderr}");
    assert!(!stderr.contains("invalid input"), "an end is not an input error: {stderr}");
}

#[test]
fn the_loop_breaker_ends_run_with_its_reason() {
    let vault = sample_vault();
    let read = || turn("", &[("read_file", json!({"path": "Projects/Plan.md"}))]);
    let (base, _) = serve(vec![read(), read(), read(), read(), turn("The plan is to ship search.", &[])]);
    let output = run(vault.path(), &base, &["--yes"], "what is the plan?");
    assert!(!output.status.success());
    assert!(text(&output.stdout).contains("The plan is to ship search."), "the final round's answer is shown");
    let stderr = text(&output.stderr);
    assert!(stderr.ends_with("vault-agent: Stopped: the model repeated the same calls.\n"), "{stderr}");
    assert!(!stderr.contains("invalid input"), "{stderr}");
}

#[test]
fn resume_lists_interrupted_tasks_and_finishes_one_at_its_approval() {
    let vault = sample_vault();
    crate::agent::resume::interrupt_at_approval(vault.path(), "Notes/Summary.md");
    let dir = vault.path().to_str().unwrap();
    let listed = vault_agent(&["resume", "--vault", dir]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listing = text(&listed.stdout);
    assert!(listing.contains("waiting for approval: Write Notes/Summary.md"), "{listing}");
    let id = listing.split('\t').next().unwrap().to_string();

    let (base, _) = serve(vec![turn("I wrote the summary.", &[])]);
    let url = format!("{base}/v1");
    let resumed = vault_agent(&[
        "resume",
        "--vault",
        dir,
        &id,
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        "local",
        "--yes",
    ]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert!(text(&resumed.stdout).contains("I wrote the summary."));
    assert_eq!(std::fs::read_to_string(vault.path().join("Notes/Summary.md")).unwrap(), "# Summary\n");
    let after = vault_agent(&["resume", "--vault", dir]);
    assert!(text(&after.stderr).contains("no interrupted tasks"), "{}", text(&after.stderr));
}

#[test]
fn a_failed_edit_is_not_reported_as_changed() {
    let vault = sample_vault();
    std::fs::write(vault.path().join("Twice.md"), "- item\n- item\n").unwrap();
    let (base, _) = serve(vec![
        turn("", &[("read_file", json!({"path": "Twice.md"}))]),
        // `- item` occurs twice, so the edit fails and nothing changes.
        turn("", &[("edit_file", json!({"path": "Twice.md", "old_string": "- item", "new_string": "- done"}))]),
        turn("I could not make that edit.", &[]),
    ]);
    let output = run(vault.path(), &base, &["--approve", "read,write"], "mark it done");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("✗ edit_file Twice.md"), "{stderr}");
    assert!(!stderr.contains("changed:") && !stderr.contains("undo with"), "{stderr}");
    assert_eq!(std::fs::read_to_string(vault.path().join("Twice.md")).unwrap(), "- item\n- item\n");
}

#[test]
fn undo_keeps_a_note_edited_after_the_task_unless_told_and_redo_applies_it_again() {
    let vault = sample_vault();
    let (base, _) = serve(vec![
        turn("", &[("read_file", json!({"path": "Projects/Plan.md"}))]),
        turn(
            "",
            &[
                (
                    "edit_file",
                    json!({"path": "Projects/Plan.md", "old_string": "- ship search", "new_string": "- ship search\n- ship undo"}),
                ),
                ("write_file", json!({"path": "Demo/Summary.md", "content": "# Summary\n"})),
            ],
        ),
        turn("Done.", &[]),
    ]);
    let output = run(vault.path(), &base, &["--approve", "read,write"], "plan");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let plan_path = vault.path().join("Projects/Plan.md");
    let typed = "# Plan\n\n- ship search\n- ship undo\n- my own line\n";
    std::fs::write(&plan_path, typed).unwrap();
    std::fs::write(vault.path().join("Demo/Mine.md"), "mine\n").unwrap();
    let dir = vault.path().to_str().unwrap();

    let planned = vault_agent(&["undo", "--vault", dir, "--plan"]);
    let out = text(&planned.stdout);
    assert!(out.contains("changed since: Projects/Plan.md (changed since the task left it)"), "{out}");
    assert!(out.contains("would move to the trash Demo/Summary.md"), "{out}");
    assert!(out.contains("would keep Demo: holds files the task did not create (Demo/Mine.md)"), "{out}");
    assert_eq!(std::fs::read_to_string(&plan_path).unwrap(), typed, "--plan changes nothing");

    let undone = vault_agent(&["undo", "--vault", dir, "--copy", "Projects/Plan.md"]);
    let out = text(&undone.stdout);
    assert!(undone.status.success(), "{}", text(&undone.stderr));
    assert!(out.contains("kept Projects/Plan.md: changed since the task left it; kept"), "{out}");
    assert!(out.contains("moved to the trash Demo/Summary.md"), "{out}");
    assert!(out.contains("to redo it: vault-agent redo --vault"), "{out}");
    assert_eq!(std::fs::read_to_string(&plan_path).unwrap(), typed);
    let copies: Vec<String> = std::fs::read_dir(vault.path().join("Projects"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("Plan (before task "))
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    let copy = std::fs::read_to_string(vault.path().join("Projects").join(&copies[0])).unwrap();
    assert_eq!(copy, "# Plan\n\n- ship search\n");
    assert_eq!(std::fs::read_to_string(vault.path().join("Demo/Mine.md")).unwrap(), "mine\n");

    let redone = vault_agent(&["redo", "--vault", dir]);
    assert!(redone.status.success(), "{}", text(&redone.stderr));
    assert!(text(&redone.stdout).contains("restored Demo/Summary.md"), "{}", text(&redone.stdout));
    assert_eq!(std::fs::read_to_string(vault.path().join("Demo/Summary.md")).unwrap(), "# Summary\n");
    assert!(!vault.path().join("Projects").join(&copies[0]).exists(), "the copy was the undo's");
}

#[test]
fn cli_search_lists_the_users_language_first_and_can_be_told_another() {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("en/Plugins/Canvas.md", "Canvas is a core plugin for visual note-taking on an infinite space.\n"),
        ("pt-br/Plugins/Canvas.md", "Canvas é um plugin.\n"),
        ("sv/Plugins/Canvas.md", "Canvas är ett plugin.\n"),
    ] {
        std::fs::create_dir_all(dir.path().join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    let search = |language: Option<&str>| {
        let vault = dir.path().to_str().unwrap();
        let mut args = vec!["search", "--vault", vault, "canvas"];
        if let Some(l) = language {
            args.extend(["--language", l]);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_vault-agent"))
            .args(&args)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env("LANG", "C.UTF-8")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout).lines().next().unwrap_or_default().to_string()
    };
    // No language anywhere: English, Obsidian's default.
    assert_eq!(search(None), "en/Plugins/Canvas.md");
    assert_eq!(search(Some("sv")), "sv/Plugins/Canvas.md");
}

#[test]
fn run_shows_the_models_thinking_on_stderr_when_asked_and_the_answer_stays_alone_on_stdout() {
    let vault = sample_vault();
    let thinking_then_answer = || {
        let chunk = |delta: Value, finish: Value| {
            format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
        };
        let parts = vec![
            chunk(json!({"reasoning_content": "The plan note "}), Value::Null),
            chunk(json!({"reasoning_content": "has one item."}), Value::Null),
            chunk(json!({"content": "One item: ship search."}), Value::Null),
            chunk(json!({}), json!("stop")),
            "data: [DONE]\n\n".to_string(),
        ];
        Answer::Sse { parts, gate: None }
    };
    let (base, _) = serve(vec![thinking_then_answer(), thinking_then_answer()]);
    let shown = run(vault.path(), &base, &["--thinking"], "What is in my plan?");
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    assert_eq!(text(&shown.stdout).trim(), "One item: ship search.");
    assert!(text(&shown.stderr).contains("thinking: The plan note has one item.\n"), "{}", text(&shown.stderr));
    let quiet = run(vault.path(), &base, &[], "What is in my plan?");
    assert_eq!(text(&quiet.stdout).trim(), "One item: ship search.");
    assert!(!text(&quiet.stderr).contains("The plan note"), "{}", text(&quiet.stderr));
}

#[test]
fn run_calls_an_mcp_servers_tool_given_with_mcp_stdio() {
    let vault = sample_vault();
    let (base, seen) =
        serve(vec![turn("", &[("mcp__ref__get-sum", json!({"a": 20, "b": 22}))]), turn("The sum is 42.", &[])]);
    let server = format!("ref=node {} stdio", crate::mcp::everything_js());
    let out = run(vault.path(), &base, &["--yes", "--mcp-stdio", &server], "Add 20 and 22 with the server");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "The sum is 42.");
    let seen = seen.lock().unwrap();
    // The tool was offered with the server's schema, and its result reached the model.
    let first: Value = serde_json::from_str(&seen[0].body).unwrap();
    let offered = first["tools"].as_array().unwrap().iter().find(|t| t["function"]["name"] == "mcp__ref__get-sum");
    assert_eq!(offered.expect("offered")["function"]["parameters"]["required"], json!(["a", "b"]));
    assert!(seen[1].body.contains("42"), "{}", seen[1].body);
}

#[test]
fn run_shows_how_far_a_long_mcp_call_is_as_its_server_reports() {
    let vault = sample_vault();
    let long = json!({"duration": 1, "steps": 2});
    let (base, _) =
        serve(vec![turn("", &[("mcp__ref__trigger-long-running-operation", long)]), turn("It finished.", &[])]);
    let server = format!("ref=node {} stdio", crate::mcp::everything_js());
    let out = run(vault.path(), &base, &["--yes", "--mcp-stdio", &server], "Run the long operation");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "It finished.");
    let stderr = text(&out.stderr);
    // Each step's report, named by the call, before the call's own line.
    let first = stderr.find("… mcp__ref__trigger-long-running-operation: 1 of 2").expect(&stderr);
    let last = stderr.find("… mcp__ref__trigger-long-running-operation: 2 of 2").expect(&stderr);
    let done = stderr.find("✓ mcp__ref__trigger-long-running-operation").expect(&stderr);
    assert!(first < last && last < done, "{stderr}");
}

#[test]
fn run_tells_a_local_mcp_server_the_vaults_folder_and_lets_it_ask_the_model() {
    let vault = sample_vault();
    let calls = [
        ("mcp__ref__get-roots-list", json!({})),
        ("mcp__ref__trigger-sampling-request", json!({"prompt": "a haiku about notes", "maxTokens": 40})),
    ];
    // The model's turns: both calls; the reply the server asks for; the answer.
    let (base, seen) =
        serve(vec![turn("", &calls), turn("Notes pile up softly.", &[]), turn("The server has its haiku.", &[])]);
    let server = format!("ref=node {} stdio", crate::mcp::everything_js());
    let out = run(vault.path(), &base, &["--yes", "--mcp-stdio", &server], "Ask the server for a haiku");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "The server has its haiku.");
    let seen = seen.lock().unwrap();
    // The server's request reached the model alone: its instructions, no tools.
    let sampled: Value = serde_json::from_str(&seen[1].body).unwrap();
    assert_eq!(sampled["messages"][0]["content"], "You are a helpful test server.");
    assert!(sampled.get("tools").is_none(), "{sampled}");
    // The server knew the vault's folder, and got the reply.
    let folder = std::fs::canonicalize(vault.path()).unwrap();
    let root = vault_agent::mcp::Root::folder(folder.to_str().unwrap()).unwrap();
    assert!(seen[2].body.contains(&format!("URI: {}", root.uri)), "{}", seen[2].body);
    assert!(seen[2].body.contains("Notes pile up softly."), "{}", seen[2].body);
}

#[test]
fn a_form_a_server_asks_for_without_a_terminal_is_cancelled_and_says_so() {
    let server = format!("ref=node {} stdio", crate::mcp::everything_js());
    let out = vault_agent(&["mcp", "call", "--mcp-stdio", &server, "ref", "trigger-elicitation-request", "{}"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("User cancelled the elicitation dialog"), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("form cancelled (no terminal to fill it in): The MCP server \"ref\" asks: Please provide"),
        "{stderr}"
    );
}

#[test]
fn a_page_a_server_asks_to_open_without_a_terminal_is_not_opened_and_says_where_it_led() {
    let server = format!("ref=node {} stdio", crate::mcp::everything_js());
    let args = r#"{"url": "https://pay.example.com/checkout/7", "message": "Pay for the order"}"#;
    // Not even with --accept-defaults: a page is never opened without asking.
    let out = vault_agent(&[
        "mcp",
        "call",
        "--accept-defaults",
        "--mcp-stdio",
        &server,
        "ref",
        "trigger-url-elicitation",
        args,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("User cancelled the URL elicitation"), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "page not opened (no terminal to ask): The MCP server \"ref\" asks you to open a page on pay.example.com: \
             Pay for the order\n  https://pay.example.com/checkout/7"
        ),
        "{stderr}"
    );
}

#[test]
fn mcp_prompts_lists_a_servers_prompts_and_mcp_prompt_fills_one_in() {
    let server = format!("ref=node {} stdio", crate::mcp::everything_js());
    let listed = vault_agent(&["mcp", "prompts", "--mcp-stdio", &server]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listed = text(&listed.stdout);
    assert!(listed.lines().any(|l| l.starts_with("ref args-prompt\tcity [state]\t")), "{listed}");
    let filled = vault_agent(&["mcp", "prompt", "--mcp-stdio", &server, "ref", "args-prompt", r#"{"city": "Paris"}"#]);
    assert!(filled.status.success(), "{}", text(&filled.stderr));
    assert_eq!(text(&filled.stdout).trim(), "What's weather in Paris?");
}

#[test]
fn mcp_resources_lists_a_servers_resources_and_mcp_read_reads_one() {
    let server = format!("ref=node {} stdio", crate::mcp::everything_js());
    let listed = vault_agent(&["mcp", "resources", "--mcp-stdio", &server]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listed = text(&listed.stdout);
    let doc = "ref demo://resource/static/document/features.md\ttext/markdown\tfeatures.md\t";
    assert!(listed.lines().any(|l| l.starts_with(doc)), "{listed}");
    let template = "ref demo://resource/dynamic/text/{resourceId}\ttemplate\tDynamic Text Resource\t";
    assert!(listed.lines().any(|l| l.starts_with(template)), "{listed}");
    let read = vault_agent(&["mcp", "read", "--mcp-stdio", &server, "ref", "demo://resource/dynamic/blob/2"]);
    assert!(read.status.success(), "{}", text(&read.stderr));
    let read = text(&read.stdout);
    assert!(
        read.starts_with("[resource demo://resource/dynamic/blob/2 (text/plain)]\nResource 2: This is a base64 blob")
    );
    let missing = vault_agent(&["mcp", "read", "--mcp-stdio", &server, "ref", "demo://resource/dynamic/text/0"]);
    assert!(!missing.status.success());
    assert!(text(&missing.stderr).contains("resources/read failed: Unknown resource"), "{}", text(&missing.stderr));
}

#[test]
fn run_remembers_what_the_task_taught_and_memory_lists_and_forgets_it() {
    let vault = sample_vault();
    let (base, seen) = serve(vec![
        turn("", &[("remember", json!({"kind": "preference", "text": "Plans are bullet lists."}))]),
        turn("Noted: plans are bullet lists.", &[]),
        // The end-of-task extraction.
        turn("- Projects live in Projects/.", &[]),
    ]);
    let output =
        run_extracting(vault.path(), &base, &["--approve", "read,memory"], "remember that my plans are bullet lists");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(seen.lock().unwrap().len(), 3);

    let dir = vault.path().to_str().unwrap();
    let listed = vault_agent(&["memory", "list", "--vault", dir]);
    let stdout = text(&listed.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("m1\tpreference\t") && lines[0].ends_with("\tPlans are bullet lists."), "{stdout}");
    assert!(lines[1].starts_with("m2\tfact\t") && lines[1].ends_with("\tProjects live in Projects/."), "{stdout}");

    let forgot = vault_agent(&["memory", "forget", "--vault", dir, "m1"]);
    assert!(forgot.status.success() && text(&forgot.stdout).contains("forgot m1"), "{}", text(&forgot.stderr));
    let listed = text(&vault_agent(&["memory", "list", "--vault", dir]).stdout);
    assert!(!listed.contains("m1\t") && listed.contains("m2\tfact"), "{listed}");
    let unknown = vault_agent(&["memory", "forget", "--vault", dir, "m9"]);
    assert!(!unknown.status.success() && text(&unknown.stderr).contains("no memory m9"));

    let all = vault_agent(&["memory", "forget", "--vault", dir, "--all"]);
    assert!(text(&all.stdout).contains("forgot 1 memories"), "{}", text(&all.stdout));
    assert_eq!(text(&vault_agent(&["memory", "list", "--vault", dir]).stdout), "no memories\n");
    let nothing = vault_agent(&["memory", "forget", "--vault", dir]);
    assert!(!nothing.status.success(), "an id or --all is required");
}

#[test]
fn run_learns_a_recipe_over_three_runs_and_the_fourth_takes_the_fast_path() {
    let vault = sample_vault();
    let request = "Summarise Projects/Plan.md into a note in Summaries/";
    let normal = |n: usize| {
        vec![
            turn("", &[("read_file", json!({"path": "Projects/Plan.md"}))]),
            turn(
                "",
                &[("write_file", json!({"path": format!("Summaries/Plan {n}.md"), "content": "- ship search\n"}))],
            ),
            turn("", &[("attempt_completion", json!({"result": format!("Wrote Summaries/Plan {n}.md.")}))]),
        ]
    };
    let mut turns: Vec<Answer> = (1..=3).flat_map(normal).collect();
    turns.push(turn(r#"{"calls": [{"tool": "read_file", "args": {"path": "Projects/Plan.md"}}]}"#, &[]));
    turns.push(turn(
        "",
        &[
            ("write_file", json!({"path": "Summaries/Plan 4.md", "content": "- ship search\n"})),
            ("attempt_completion", json!({"result": "Wrote Summaries/Plan 4.md."})),
        ],
    ));
    let (base, seen) = serve(turns);
    let flags = ["--approve", "read,write"];
    for n in 1..=3 {
        let output = run(vault.path(), &base, &flags, request);
        assert!(output.status.success(), "run {n}: {}", text(&output.stderr));
        assert!(!text(&output.stderr).contains("fast path"), "run {n}");
        assert_eq!(seen.lock().unwrap().len(), 3 * n, "run {n}: three model calls");
    }
    let dir = vault.path().to_str().unwrap();
    let listed = text(&vault_agent(&["memory", "list", "--vault", dir]).stdout);
    assert!(listed.starts_with("r1\trecipe\t"), "{listed}");
    assert!(listed.contains(&format!("\t{request}\t3 successes, 0 failures\tread_file, write_file")), "{listed}");

    let output = run(vault.path(), &base, &flags, request);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("fast path: recipe r1 (\"{request}\", 3 successes, 0 failures)")), "{stderr}");
    assert_eq!(seen.lock().unwrap().len(), 11, "the fourth run made two model calls");
    assert_eq!(text(&output.stdout).trim(), "Wrote Summaries/Plan 4.md.");
    assert_eq!(std::fs::read_to_string(vault.path().join("Summaries/Plan 4.md")).unwrap(), "- ship search\n");
    let planner: Value = serde_json::from_str(&seen.lock().unwrap()[9].body).unwrap();
    assert!(planner.get("tools").is_none_or(|t| t.as_array().is_some_and(Vec::is_empty)), "{planner}");
    assert!(text(&vault_agent(&["memory", "list", "--vault", dir]).stdout).contains("4 successes, 0 failures"));

    let forgot = vault_agent(&["memory", "forget", "--vault", dir, "r1"]);
    assert!(text(&forgot.stdout).contains(&format!("forgot r1: {request}")), "{}", text(&forgot.stderr));
    assert_eq!(text(&vault_agent(&["memory", "list", "--vault", dir]).stdout), "no memories\n");
}

#[test]
fn run_attaches_an_image_and_a_pdf_as_the_model_takes_them() {
    let vault = sample_vault();
    std::fs::write(vault.path().join("chart.png"), include_bytes!("../fixtures/chart.png")).unwrap();
    std::fs::write(vault.path().join("q3.pdf"), include_bytes!("../fixtures/report.pdf")).unwrap();
    let (base, seen) = serve(vec![turn("Blue is ahead.", &[])]);
    // gpt-4o is a model that sees images.
    let run_gpt4o = |extra: &[&str], task: &str| run_with(vault.path(), &base, "gpt-4o", extra, task);
    let output =
        run_gpt4o(&["--no-memory-extraction", "--attach", "chart.png", "--attach", "q3.pdf"], "what do these show?");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let body: Value = serde_json::from_str(&seen.lock().unwrap()[0].body).unwrap();
    let user = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap();
    let kinds: Vec<&str> = user["content"].as_array().unwrap().iter().map(|p| p["type"].as_str().unwrap()).collect();
    // gpt-4o sees the image; a compatible server (this one) gets the PDF's text.
    assert_eq!(kinds, ["text", "image_url"]);
    assert!(user["content"][1]["image_url"]["url"].as_str().unwrap().starts_with("data:image/png;base64,iVBORw0KGgo"));
    let message = user["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("<note path=\"q3.pdf\">\n--- page 1 ---\nQuarterly revenue grew"), "{message}");
    // A missing attachment stops before any request.
    let missing = run_gpt4o(&["--attach", "nope.png"], "x");
    assert!(!missing.status.success());
    assert!(text(&missing.stderr).contains("nope.png"), "{}", text(&missing.stderr));
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn run_on_an_ollama_short_of_context_says_how_to_give_it_more() {
    let vault = sample_vault();
    let ps = json!({"models": [{"name": "local:latest", "model": "local:latest", "context_length": 4096}]});
    let (base, _) = serve_as_ollama(vec![turn("Hello.", &[])], Some(ps.to_string()));
    let output = run(vault.path(), &base, &[], "hi");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("warning: Ollama serves local with 4,096 tokens of context, too few for the agent"),
        "{stderr}"
    );
    assert!(stderr.contains("OLLAMA_CONTEXT_LENGTH=32768"), "{stderr}");
}

#[test]
fn run_searches_the_web_through_a_searxng_instance() {
    let vault = sample_vault();
    let results = json!({"query": "obsidian sync", "results": [
        {"title": "Obsidian Sync", "url": "https://obsidian.md/sync", "content": "Sync your notes."}]});
    let (base, seen) = serve(vec![
        turn("", &[("web_search", json!({"query": "obsidian sync"}))]),
        Answer::Page("application/json", results.to_string()),
        turn("It syncs notes.", &[]),
    ]);
    let output = run(vault.path(), &base, &["--yes", "--searxng", &base], "what is obsidian sync?");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("It syncs notes."));
    let seen = seen.lock().unwrap();
    assert_eq!(seen[1].line, "GET /search?q=obsidian%20sync&format=json HTTP/1.1");
    assert!(seen[2].body.contains("SearXNG results for ‘obsidian sync’"), "{}", seen[2].body);
    // Brave Search without its key is refused before anything is sent.
    let output = Command::new(env!("CARGO_BIN_EXE_vault-agent"))
        .args(["run", "--vault", vault.path().to_str().unwrap(), "--provider", "openai", "--base-url"])
        .args(["http://127.0.0.1:9/v1", "--model", "local", "--brave-search", "hi"])
        .env_remove("BRAVE_SEARCH_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("BRAVE_SEARCH_API_KEY"), "{}", text(&output.stderr));
}

/// A Responses API event stream: `text`, or one call of `name` with `arguments`.
fn responses_turn(text: &str, call: Option<(&str, Value)>) -> Answer {
    let event = |data: Value| format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap());
    let mut parts = vec![event(json!({"type": "response.created", "response": {"status": "in_progress"}}))];
    if !text.is_empty() {
        parts.push(event(json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": text})));
    }
    if let Some((name, arguments)) = &call {
        let item = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": ""});
        parts.push(event(json!({"type": "response.output_item.added", "output_index": 0, "item": item})));
        let delta = json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": arguments.to_string()});
        parts.push(event(delta));
        let done = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": arguments.to_string()});
        parts.push(event(json!({"type": "response.output_item.done", "output_index": 0, "item": done})));
    }
    let usage = json!({"input_tokens": 120, "output_tokens": 30});
    parts.push(event(json!({"type": "response.completed", "response": {"status": "completed", "usage": usage}})));
    Answer::Sse { parts, gate: None }
}

#[test]
fn run_speaks_the_responses_api_when_told_to() {
    let vault = sample_vault();
    let (base, seen) = serve(vec![
        responses_turn("", Some(("read_file", json!({"path": "Projects/Plan.md"})))),
        responses_turn("The plan is to ship search.", None),
    ]);
    let out = run(vault.path(), &base, &["--openai-api", "responses"], "What is the plan?");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("The plan is to ship search."), "{}", text(&out.stdout));
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().all(|s| s.line.starts_with("POST /v1/responses ")),
        "{:?}",
        seen.iter().map(|s| &s.line).collect::<Vec<_>>()
    );
    let next: Value = serde_json::from_str(&seen[1].body).unwrap();
    let output = next["input"].as_array().unwrap().iter().find(|i| i["type"] == "function_call_output").unwrap();
    assert_eq!(output["call_id"], "call_1");
    assert!(output["output"].as_str().unwrap().contains("ship search"), "{output}");
}

/// The CLI tells the model the date and time as the computer's clock shows them: its time zone
/// (here a POSIX `TZ` nine hours ahead of UTC, which needs no time zone files), with the weekday.
#[test]
fn run_tells_the_model_the_local_date_and_time() {
    let vault = sample_vault();
    let (base, seen) = serve(vec![turn("Noted.", &[])]);
    let url = format!("{base}/v1");
    let output = Command::new(env!("CARGO_BIN_EXE_vault-agent"))
        .args(["run", "--vault", vault.path().to_str().unwrap(), "--provider", "openai", "--base-url", &url])
        .args(["--model", "local", "--no-memory-extraction", "what day is it?"])
        .env_remove("OPENAI_API_KEY")
        .env("TZ", "JST-9")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let body: Value = serde_json::from_str(&seen.lock().unwrap()[0].body).unwrap();
    let system = body["messages"][0]["content"].to_string();
    let line = system.split("Current date and time: ").nth(1).expect(&system);
    let line = &line[..line.find("\\n").unwrap_or(line.len())];
    assert!(line.contains(" UTC+09:00, a "), "{line}");
}
