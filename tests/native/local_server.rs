//! A local HTTP server on 127.0.0.1 for tests of the real binary and of `web_fetch`: it answers
//! each connection with the next scripted answer (an event stream, a page, or an error status)
//! and records what it got; Ollama's and LM Studio's pages of loaded models it answers 404 on
//! the side.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// A request as the server saw it: the request line, lower-case headers and the body.
#[derive(Debug, Clone)]
pub struct Seen {
    pub line: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

pub enum Answer {
    /// An event stream in parts; with a gate, the parts after the first wait for it.
    Sse {
        parts: Vec<String>,
        gate: Option<mpsc::Receiver<()>>,
    },
    Status(u16, String),
    /// A page: its content type and body.
    Page(&'static str, String),
}

/// Reads one request from `stream`: its line, lower-case headers and body (by
/// `content-length`).
pub fn read_request(stream: &std::net::TcpStream) -> Seen {
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
    Seen { line: line.trim_end().to_string(), headers, body: String::from_utf8(body).unwrap() }
}

/// Serves one answer per connection, in order, on a thread; returns the base URL.
pub fn serve(answers: Vec<Answer>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    serve_as_ollama(answers, None)
}

/// [`serve`], and with `ps` Ollama's `GET /api/ps` answers it (the loaded models and the
/// context each is served with).
pub fn serve_as_ollama(answers: Vec<Answer>, ps: Option<String>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        let mut answers = answers.into_iter();
        loop {
            let (stream, _) = listener.accept().unwrap();
            let request = read_request(&stream);
            let mut out = stream;
            // A client that asks this machine's server for Ollama's or LM Studio's loaded models
            // (to learn the window it serves) hears there is no such page, and no scripted answer
            // is used.
            if request.line.starts_with("GET ")
                && ["/api/ps ", "/api/v0/models "].iter().any(|p| request.line.contains(p))
            {
                match &ps {
                    Some(body) if request.line.contains("/api/ps ") => {
                        whole(&mut out, "200 OK", "content-type: application/json", body)
                    }
                    _ => whole(&mut out, "404 Not Found", "content-type: text/plain", "404 page not found"),
                }
                continue;
            }
            let Some(answer) = answers.next() else { break };
            log.lock().unwrap().push(request);
            match answer {
                Answer::Status(status, body) => whole(
                    &mut out,
                    &format!("{status} Error"),
                    "content-type: application/json\r\nretry-after: 0",
                    &body,
                ),
                Answer::Page(kind, body) => whole(&mut out, "200 OK", &format!("content-type: {kind}"), &body),
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

/// Writes a whole response: the status line, `headers` (CRLF-separated), the length and `body`.
fn whole(out: &mut impl Write, status: &str, headers: &str, body: &str) {
    let head = format!("HTTP/1.1 {status}\r\n{headers}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
    out.write_all(head.as_bytes()).unwrap();
    out.write_all(body.as_bytes()).unwrap();
}
