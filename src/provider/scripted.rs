//! A scripted model: a real [`ModelProvider`] that replays scripted turns as streamed events,
//! for tests, benchmarks and the demo without a server.

use std::cell::{Cell, RefCell};
use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_trait::async_trait;
use futures::stream::{self, StreamExt};
use serde_json::Value;

use super::{EventStream, MediaSupport, ModelProvider};
use crate::cancel::CancelToken;
use crate::context::tokens::{estimate_message, estimate_request, estimate_text};
use crate::hash::content_hash;
use crate::protocol::{ErrorKind, ModelRequest, ProviderError, StopReason, StreamEvent, Usage};

/// A tool call in a scripted turn. An `input` that is a JSON string stands for arguments the
/// output limit cut off: they stream as that raw text, and the turn ends at the limit
/// ([`StopReason::MaxTokens`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedCall {
    pub name: String,
    pub input: Value,
}

/// One scripted model response.
pub enum Turn {
    /// Streams optional thinking, then text, then tool calls.
    Reply { thinking: Option<String>, text: String, calls: Vec<ScriptedCall> },
    /// The call fails with this error (after no events).
    Fail(ProviderError),
    /// Streams `text`, then fails with `error`: a server's error event mid-answer.
    Broken { text: String, error: ProviderError },
    /// Streams `text`, then waits until the task is cancelled.
    Hang { text: String },
    /// The turn is computed from the request (to answer what the tools returned).
    Dynamic(Box<dyn Fn(&ModelRequest) -> Turn>),
}

impl Turn {
    /// A text-only answer.
    pub fn text(text: impl Into<String>) -> Self {
        Turn::Reply { thinking: None, text: text.into(), calls: Vec::new() }
    }

    /// Tool calls with no text.
    pub fn tools<'a>(calls: impl IntoIterator<Item = (&'a str, Value)>) -> Self {
        Turn::text_and_tools("", calls)
    }

    /// Text, then tool calls.
    pub fn text_and_tools<'a>(text: impl Into<String>, calls: impl IntoIterator<Item = (&'a str, Value)>) -> Self {
        let calls = calls.into_iter().map(|(name, input)| ScriptedCall { name: name.to_string(), input }).collect();
        Turn::Reply { thinking: None, text: text.into(), calls }
    }

    /// A failed call.
    pub fn fail(kind: ErrorKind, message: impl Into<String>) -> Self {
        Turn::Fail(ProviderError::new(kind, message))
    }
}

/// Replays [`Turn`]s in order, one per model call, streaming each in small pieces with a
/// yield to the executor between events, as a network stream would arrive. It records every
/// request, so tests can check what the model was sent. When the script runs out, a call fails
/// with a protocol error.
pub struct ScriptedProvider {
    turns: RefCell<VecDeque<Turn>>,
    requests: RefCell<Vec<ModelRequest>>,
    chunk_chars: usize,
    calls: Cell<u32>,
    /// With a prompt cache, the prefixes (by hash) written so far.
    cache: Option<RefCell<HashSet<u64>>>,
    media: MediaSupport,
    /// The context window it says it serves each model with, as Ollama does.
    served_window: Option<u32>,
}

impl ScriptedProvider {
    /// A provider that will answer with `turns`, in order.
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        ScriptedProvider {
            turns: RefCell::new(turns.into_iter().collect()),
            requests: RefCell::new(Vec::new()),
            chunk_chars: 8,
            calls: Cell::new(0),
            cache: None,
            media: MediaSupport::ALL,
            served_window: None,
        }
    }

    /// Says it serves every model with a `window`-token context, as Ollama's `/api/ps` says.
    pub fn with_served_window(mut self, window: u32) -> Self {
        self.served_window = Some(window);
        self
    }

    /// Answers as a model that takes only what `media` says besides text.
    pub fn with_media(mut self, media: MediaSupport) -> Self {
        self.media = media;
        self
    }

    /// Reports usage as a provider with Anthropic-style prompt caching would: the request is
    /// cut at its cache breakpoints (the system parts that end a stable prefix, and the last
    /// message); the longest prefix that an earlier request wrote at one of its breakpoints is
    /// read from the cache (found at any block boundary, as Anthropic's lookback does), the rest
    /// up to the last breakpoint is written to it. Prefixes under
    /// `MIN_CACHED_TOKENS` are not cached. Tokens are estimated at four characters each.
    pub fn with_prompt_cache(mut self) -> Self {
        self.cache = Some(RefCell::new(HashSet::new()));
        self
    }

    /// Streams text and arguments in pieces of `chars` characters (default 8).
    pub fn with_chunk_chars(mut self, chars: usize) -> Self {
        self.chunk_chars = chars.max(1);
        self
    }

    /// Adds turns at the end of the script.
    pub fn push(&self, turn: Turn) {
        self.turns.borrow_mut().push_back(turn);
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests.borrow().clone()
    }

    /// How many turns are left.
    pub fn remaining(&self) -> usize {
        self.turns.borrow().len()
    }
}

#[async_trait(?Send)]
impl ModelProvider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        "scripted"
    }

    fn media(&self) -> MediaSupport {
        self.media
    }

    async fn served_window(&self, _id: &str, _cancel: &CancelToken) -> Option<super::ServedWindow> {
        self.served_window.map(|tokens| super::ServedWindow { tokens, server: super::LocalServer::Ollama })
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> EventStream {
        self.requests.borrow_mut().push(request.clone());
        let call = self.calls.get() + 1;
        self.calls.set(call);
        let mut turn = self.turns.borrow_mut().pop_front();
        while let Some(Turn::Dynamic(make)) = turn {
            turn = Some(make(request));
        }
        let input = self.input_usage(request);
        let (events, hang) = match turn {
            None => {
                (vec![error(ProviderError::new(ErrorKind::Protocol, "the scripted model has no more turns"))], false)
            }
            Some(Turn::Fail(e)) => (vec![error(e)], false),
            Some(Turn::Broken { text, error: e }) => {
                let mut events = chunks(&text, self.chunk_chars, |t| StreamEvent::TextDelta { text: t });
                events.push(error(e));
                (events, false)
            }
            Some(Turn::Hang { text }) => {
                (chunks(&text, self.chunk_chars, |t| StreamEvent::TextDelta { text: t }), true)
            }
            Some(Turn::Reply { thinking, text, calls }) => {
                (reply_events(call, thinking, &text, &calls, input, self.chunk_chars), false)
            }
            Some(Turn::Dynamic(_)) => unreachable!("dynamic turns were resolved above"),
        };
        let cancel = cancel.clone();
        let body = stream::iter(events).then(|event| async move {
            YieldNow(false).await;
            event
        });
        if hang {
            let tail = stream::once(async move {
                cancel.cancelled().await;
                error(ProviderError::new(ErrorKind::Cancelled, "cancelled"))
            });
            body.chain(tail).boxed_local()
        } else {
            body.boxed_local()
        }
    }
}

fn error(error: ProviderError) -> StreamEvent {
    StreamEvent::Error { error }
}

fn reply_events(
    call: u32,
    thinking: Option<String>,
    text: &str,
    calls: &[ScriptedCall],
    input: Usage,
    chunk: usize,
) -> Vec<StreamEvent> {
    let mut events = vec![StreamEvent::Usage { usage: input }];
    if let Some(thinking) = thinking {
        events.extend(chunks(&thinking, chunk, |t| StreamEvent::ThinkingDelta { text: t }));
        events.push(StreamEvent::ThinkingSignature { signature: format!("scripted-signature-{call}") });
    }
    events.extend(chunks(text, chunk, |t| StreamEvent::TextDelta { text: t }));
    let mut output_chars = text.chars().count();
    for (index, c) in calls.iter().enumerate() {
        let json = match &c.input {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        };
        output_chars += json.chars().count() + c.name.len();
        events.push(StreamEvent::ToolCallStart { index, id: format!("call_{call}_{index}"), name: c.name.clone() });
        events.extend(chunks(&json, chunk, |t| StreamEvent::ToolCallDelta { index, json: t }));
        events.push(StreamEvent::ToolCallEnd { index });
    }
    let output_tokens = (output_chars as u64).div_ceil(4);
    events.push(StreamEvent::Usage { usage: Usage { output_tokens, ..Default::default() } });
    let stop_reason = match calls {
        [] => StopReason::EndTurn,
        _ if calls.iter().any(|c| c.input.is_string()) => StopReason::MaxTokens,
        _ => StopReason::ToolUse,
    };
    events.push(StreamEvent::Done { stop_reason });
    events
}

fn chunks(text: &str, size: usize, make: impl Fn(String) -> StreamEvent) -> Vec<StreamEvent> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|piece| make(piece.iter().collect())).collect()
}

/// The smallest prefix a prompt cache keeps (Anthropic's minimum for its larger models).
pub const MIN_CACHED_TOKENS: u64 = 1_024;

impl ScriptedProvider {
    /// The input side of the usage for `request`: all uncached, or split by the simulated
    /// prompt cache.
    fn input_usage(&self, request: &ModelRequest) -> Usage {
        let total = estimate_request(request);
        let Some(cache) = &self.cache else {
            return Usage { input_tokens: total, ..Default::default() };
        };
        // The request as the cache sees it: tools, then system parts, then messages, with a
        // breakpoint after each marked system part and after the last message.
        let mut blocks: Vec<(String, u64, bool)> = Vec::new();
        let tools = serde_json::to_string(&request.tools).unwrap_or_default();
        let tool_tokens: u64 = total
            - request.system.iter().map(|p| estimate_text(&p.text)).sum::<u64>()
            - request.messages.iter().map(estimate_message).sum::<u64>();
        blocks.push((tools, tool_tokens, false));
        for part in &request.system {
            blocks.push((part.text.clone(), estimate_text(&part.text), part.cache_breakpoint));
        }
        let last = request.messages.len().saturating_sub(1);
        for (i, message) in request.messages.iter().enumerate() {
            let json = serde_json::to_string(message).unwrap_or_default();
            blocks.push((json, estimate_message(message), i == last));
        }
        let mut cache = cache.borrow_mut();
        let (mut hash, mut tokens) = (0u64, 0u64);
        let (mut read, mut written_to) = (0u64, 0u64);
        for (text, block_tokens, breakpoint) in &blocks {
            hash = content_hash(format!("{hash:x}{text}").as_bytes());
            tokens += block_tokens;
            // A lookup finds a prefix written earlier at any block boundary before a
            // breakpoint, as Anthropic's does (it looks back from each breakpoint).
            if cache.contains(&hash) {
                read = tokens;
            } else if *breakpoint && tokens >= MIN_CACHED_TOKENS {
                cache.insert(hash);
            }
            if *breakpoint && tokens >= MIN_CACHED_TOKENS {
                written_to = tokens;
            }
        }
        let write = written_to.saturating_sub(read);
        Usage {
            input_tokens: total - read - write,
            cache_read_tokens: read,
            cache_write_tokens: write,
            ..Default::default()
        }
    }
}

/// Returns `Pending` once, after asking to be polled again: a yield to the executor.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::Message;
    use crate::provider::complete;

    fn request() -> ModelRequest {
        ModelRequest {
            system: vec![],
            messages: vec![Message::user("hi")],
            tools: vec![],
            max_tokens: 100,
            thinking_budget: None,
            temperature: None,
            tool_choice: Default::default(),
            model: None,
        }
    }

    #[test]
    fn the_simulated_prompt_cache_reads_the_prefix_an_earlier_request_wrote() {
        let provider = ScriptedProvider::new([Turn::text("a"), Turn::text("b"), Turn::text("c")]).with_prompt_cache();
        let mut r = request();
        r.system = vec![crate::protocol::SystemPart { text: "x".repeat(8_000), cache_breakpoint: true }];
        let usage =
            |r: &ModelRequest| futures::executor::block_on(complete(&provider, r, &CancelToken::new())).unwrap().usage;
        let first = usage(&r);
        assert_eq!((first.cache_read_tokens, first.input_tokens), (0, 0), "all written: {first:?}");
        assert!(first.cache_write_tokens >= 2_000);
        r.messages.push(Message::assistant("a"));
        r.messages.push(Message::user("more"));
        let second = usage(&r);
        assert_eq!(second.cache_read_tokens, first.cache_write_tokens, "the first request's prefix is read back");
        assert!(second.cache_write_tokens > 0 && second.cache_write_tokens < 10);
        assert_eq!(second.total_input(), estimate_request(&r));
    }

    #[test]
    fn turns_stream_in_pieces_and_assemble_back() {
        let provider = ScriptedProvider::new([
            Turn::text_and_tools("Let me look that up.", [("read_file", json!({"path": "Notes/a long name.md"}))]),
            Turn::text("Done."),
        ])
        .with_chunk_chars(3);
        let events: Vec<StreamEvent> = futures::executor::block_on(async {
            provider.stream(&request(), &CancelToken::new()).await.collect().await
        });
        let deltas = events.iter().filter(|e| matches!(e, StreamEvent::ToolCallDelta { .. })).count();
        assert!(deltas > 5, "arguments arrive in many pieces: {deltas}");
        let done = futures::executor::block_on(complete(&provider, &request(), &CancelToken::new())).unwrap();
        assert_eq!(done.message.text(), "Done.");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        assert_eq!(provider.requests().len(), 2);
        assert_eq!(provider.remaining(), 0);
        let exhausted = futures::executor::block_on(complete(&provider, &request(), &CancelToken::new()));
        assert_eq!(exhausted.unwrap_err().kind, ErrorKind::Protocol);
    }
}
