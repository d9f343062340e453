//! `vault-agent chat`: the real binary against a local server on 127.0.0.1 that speaks the
//! provider protocols.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;

use crate::local_server::{serve, Answer};
use crate::provider_support::fixture;

fn chat(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vault-agent"));
    command.arg("chat").args(args).env_remove("ANTHROPIC_API_KEY").env_remove("OPENAI_API_KEY");
    for (k, v) in env {
        command.env(k, v);
    }
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

const ANSWER: &str = "Hello! Your notes on cats are in `Pets/Cats.md` — 3 of them, 日本語 included.\n";

#[test]
fn chat_streams_an_anthropic_answer_to_stdout_as_it_arrives() {
    let body = fixture("anthropic/text.sse");
    let cut = body.find("cats are in").unwrap();
    // Hold the stream after "Hello! Your notes on " until the test has read that from stdout.
    let (release, gate) = mpsc::channel();
    let (base, seen) =
        serve(vec![Answer::Sse { parts: vec![body[..cut].to_string(), body[cut..].to_string()], gate: Some(gate) }]);
    let mut child = chat(
        &["--provider", "anthropic", "--base-url", &base, "--model", "claude-test", "Where are my cat notes?"],
        &[("ANTHROPIC_API_KEY", "sk-ant-env")],
    )
    .spawn()
    .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = vec![0u8; "Hello! Your notes on ".len()];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(String::from_utf8(first).unwrap(), "Hello! Your notes on ");
    release.send(()).unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(format!("Hello! Your notes on {rest}"), ANSWER);

    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].line, "POST /v1/messages HTTP/1.1");
    assert_eq!(seen[0].header("x-api-key"), Some("sk-ant-env"));
    assert_eq!(seen[0].header("anthropic-version"), Some("2023-06-01"));
    let body: serde_json::Value = serde_json::from_str(&seen[0].body).unwrap();
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["messages"][0]["content"][0]["text"], "Where are my cat notes?");
}

#[test]
fn chat_speaks_to_an_openai_compatible_server_without_a_key() {
    let body = fixture("openai/text.sse");
    let (base, seen) = serve(vec![Answer::Sse { parts: vec![body], gate: None }]);
    let output = chat(
        &[
            "--provider",
            "openai",
            "--base-url",
            &format!("{base}/v1"),
            "--model",
            "llama3.2",
            "--max-tokens",
            "64",
            "--header",
            "cf-aig-authorization: Bearer gw-1",
            "hi",
        ],
        &[],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), ANSWER);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(seen[0].header("authorization"), None);
    assert_eq!(seen[0].header("cf-aig-authorization"), Some("Bearer gw-1"));
    let body: serde_json::Value = serde_json::from_str(&seen[0].body).unwrap();
    assert_eq!(body["max_tokens"], 64);
}

#[test]
fn chat_retries_then_reports_a_clear_error_and_fails() {
    let auth = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    let (base, seen) = serve(vec![Answer::Status(529, "{}".into()), Answer::Status(401, auth.into())]);
    let output =
        chat(&["--provider", "anthropic", "--base-url", &base, "--model", "m", "--api-key", "wrong", "hi"], &[])
            .output()
            .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("retrying in 0.0 s (attempt 2 of 6)"), "{stderr}");
    assert!(stderr.contains("not authorised (HTTP 401): invalid x-api-key"), "{stderr}");
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn chat_without_a_key_says_where_to_put_one() {
    let output = chat(&["--provider", "anthropic", "--model", "m", "hi"], &[]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--api-key") && stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
}

#[test]
fn list_models_prints_the_servers_chat_models_and_says_why_when_it_cannot() {
    let body = r#"{"object":"list","data":[
        {"id":"qwen2.5:latest","created":2},
        {"id":"nomic-embed-text:latest","created":3},
        {"id":"anthropic/claude-sonnet-4.5","name":"Claude Sonnet 4.5","context_length":1000000,"created":1,
         "pricing":{"prompt":"0.000003","completion":"0.000015"}}
    ]}"#;
    let (base, seen) = serve(vec![Answer::Page("application/json", body.to_string())]);
    let mut command = Command::new(env!("CARGO_BIN_EXE_vault-agent"));
    command.args(["list-models", "--provider", "openai", "--base-url", &format!("{base}/v1")]);
    let output = command.env_remove("OPENAI_API_KEY").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "qwen2.5:latest\tfree\nanthropic/claude-sonnet-4.5\tClaude Sonnet 4.5\t1000000 tokens\t$3 / $15 per M tokens\n"
    );
    assert_eq!(seen.lock().unwrap()[0].line, "GET /v1/models HTTP/1.1");

    let refusal = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    let (base, seen) = serve(vec![Answer::Status(401, refusal.to_string())]);
    let mut command = Command::new(env!("CARGO_BIN_EXE_vault-agent"));
    command.args(["list-models", "--provider", "anthropic", "--base-url", &base, "--api-key", "sk-bad"]);
    let output = command.output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("the models could not be listed") && stderr.contains("invalid x-api-key"), "{stderr}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].line, "GET /v1/models?limit=1000 HTTP/1.1");
    assert_eq!(seen[0].header("x-api-key"), Some("sk-bad"));
}
