//! `vault-agent chat`: the real binary against a local server on 127.0.0.1 that speaks the
//! provider protocols.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::provider_support::fixture;

/// A request as the server saw it: the request line, lower-case headers and the body.
#[derive(Debug, Clone)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

enum Answer {
    /// An event stream in parts; with a gate, the parts after the first wait for it.
    Sse {
        parts: Vec<String>,
        gate: Option<mpsc::Receiver<()>>,
    },
    Status(u16, String),
}

/// Serves one answer per connection, in order, on a thread; returns the base URL.
fn serve(answers: Vec<Answer>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for answer in answers {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut headers = Vec::new();
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap();
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
            let length: usize =
                headers.iter().find(|(k, _)| k == "content-length").map(|(_, v)| v.parse().unwrap()).unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            log.lock().unwrap().push(Seen {
                line: line.trim_end().to_string(),
                headers,
                body: String::from_utf8(body).unwrap(),
            });
            let mut out = stream;
            match answer {
                Answer::Status(status, body) => {
                    let head = format!(
                        "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 0\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    out.write_all(head.as_bytes()).unwrap();
                    out.write_all(body.as_bytes()).unwrap();
                }
                Answer::Sse { parts, gate } => {
                    out.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
                        .unwrap();
                    for (i, part) in parts.iter().enumerate() {
                        if i == 1 {
                            if let Some(gate) = &gate {
                                gate.recv().unwrap();
                            }
                        }
                        out.write_all(part.as_bytes()).unwrap();
                        out.flush().unwrap();
                    }
                }
            }
        }
    });
    (base, seen)
}

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
    assert!(stderr.contains("Auth (HTTP 401): invalid x-api-key"), "{stderr}");
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn chat_without_a_key_says_where_to_put_one() {
    let output = chat(&["--provider", "anthropic", "--model", "m", "hi"], &[]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--api-key") && stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
}
