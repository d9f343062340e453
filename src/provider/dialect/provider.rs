//! The wrapper that gives a model without native tool calling the same tool interface.

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;

use async_trait::async_trait;
use futures::stream::{self, StreamExt};

use super::parse::{parse_block, CallSplitter, Piece};
use super::{render_result, TextToolDialect};
use crate::cancel::CancelToken;
use crate::protocol::{
    ContentBlock, ErrorKind, Message, ModelRequest, ProviderError, StopReason, StreamEvent, SystemPart, ToolChoice,
    ToolSpec,
};
use crate::provider::{classify, EventStream, MediaSupport, ModelProvider};

/// Wraps `inner` so that tools are described in the prompt and called in text (see the
/// [module docs](super)).
pub struct TextToolProvider {
    inner: Box<dyn ModelProvider>,
    dialect: TextToolDialect,
    /// Numbers the calls read from text, so their ids are unique across the conversation.
    next_id: Rc<Cell<u64>>,
    /// Tools go natively until the server says the model cannot take them
    /// ([`TextToolProvider::fallback`]).
    native: Cell<bool>,
}

impl TextToolProvider {
    /// `inner` with tool calls in `dialect`.
    pub fn new(inner: Box<dyn ModelProvider>, dialect: TextToolDialect) -> Self {
        TextToolProvider { inner, dialect, next_id: Rc::new(Cell::new(0)), native: Cell::new(false) }
    }

    /// `inner` as it is — native tool calls, requests and events untouched — until the server
    /// refuses a request's tools because the model does not take them (Ollama: "gemma3 does not
    /// support tools", for any model whose template has none), before any output; from then
    /// on, and for that request, tool calls in `dialect`. A user who picked such a model gets
    /// an agent that works rather than an error.
    pub fn fallback(inner: Box<dyn ModelProvider>, dialect: TextToolDialect) -> Self {
        TextToolProvider { native: Cell::new(true), ..TextToolProvider::new(inner, dialect) }
    }

    /// The request `inner` receives: the tools in the system prompt instead of the `tools`
    /// field, and earlier calls and results written as text.
    pub fn rewrite(&self, request: &ModelRequest) -> ModelRequest {
        let mut rewritten = request.clone();
        rewritten.tools = Vec::new();
        rewritten.tool_choice = ToolChoice::Auto;
        // With tools disabled (a forced answer), the model is not told about them at all.
        if !request.tools.is_empty() && request.tool_choice == ToolChoice::Auto {
            rewritten
                .system
                .push(SystemPart { text: self.dialect.render_tools(&request.tools), cache_breakpoint: true });
        }
        let names: HashMap<&str, &str> =
            request.messages.iter().flat_map(|m| m.tool_uses()).map(|(id, name, _)| (id, name)).collect();
        rewritten.messages = request.messages.iter().map(|m| self.rewrite_message(m, &names)).collect();
        rewritten
    }

    fn rewrite_message(&self, message: &Message, names: &HashMap<&str, &str>) -> Message {
        let mut content: Vec<ContentBlock> = Vec::new();
        let push_text = |text: String, content: &mut Vec<ContentBlock>| match content.last_mut() {
            Some(ContentBlock::Text { text: last }) => {
                last.push_str("\n\n");
                last.push_str(&text);
            }
            _ => content.push(ContentBlock::Text { text }),
        };
        for block in &message.content {
            match block {
                ContentBlock::ToolUse { name, input, .. } => {
                    push_text(self.dialect.render_call(name, input), &mut content)
                }
                ContentBlock::ToolResult { tool_use_id, content: result, is_error } => {
                    let name = names.get(tool_use_id.as_str()).copied().unwrap_or("unknown");
                    push_text(render_result(name, tool_use_id, result, *is_error), &mut content);
                }
                ContentBlock::Text { text } => push_text(text.clone(), &mut content),
                other => content.push(other.clone()),
            }
        }
        Message { role: message.role, content }
    }
}

#[async_trait(?Send)]
impl ModelProvider for TextToolProvider {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn media(&self) -> MediaSupport {
        self.inner.media()
    }

    fn price(&self, id: &str) -> Option<crate::provider::ModelPrice> {
        self.inner.price(id)
    }

    async fn served_window(&self, id: &str, cancel: &CancelToken) -> Option<crate::provider::ServedWindow> {
        self.inner.served_window(id, cancel).await
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> EventStream {
        let mut notice = None;
        if self.native.get() {
            // The first event says whether the model took the tools: a refusal comes before
            // any output (and within the transport's idle limit, like any first event).
            let mut native = self.inner.stream(request, cancel).await;
            match native.next().await {
                Some(StreamEvent::Error { error }) if !request.tools.is_empty() && refuses_tools(&error) => {
                    self.native.set(false);
                    let model = request.model.as_deref().unwrap_or(self.inner.model());
                    notice = Some(StreamEvent::Notice {
                        message: format!(
                            "The server does not let {model} call tools itself (\u{201c}{}\u{201d}), so the agent \
                             describes them in the prompt and reads the calls from the model's answers; small models \
                             get this wrong more often. A model that calls tools (qwen2.5, llama3.1, mistral-nemo) \
                             works better.",
                            error.message.trim()
                        ),
                    });
                }
                Some(first) => return stream::iter([first]).chain(native).boxed_local(),
                None => return native,
            }
        }
        let inner = self.inner.stream(&self.rewrite(request), cancel).await;
        let mut reader = CallReader {
            splitter: CallSplitter::default(),
            tools: request.tools.clone(),
            calls: 0,
            next_id: self.next_id.clone(),
        };
        let events = inner.flat_map(move |event| stream::iter(reader.on_event(event)));
        stream::iter(notice).chain(events).boxed_local()
    }
}

/// Whether `error` is a refusal of the request's tools ([`classify::refuses_tools`]).
fn refuses_tools(error: &ProviderError) -> bool {
    error.kind == ErrorKind::BadRequest && classify::refuses_tools(&error.message)
}

/// Reads call blocks out of one response's text.
struct CallReader {
    splitter: CallSplitter,
    tools: Vec<ToolSpec>,
    calls: usize,
    next_id: Rc<Cell<u64>>,
}

impl CallReader {
    fn on_event(&mut self, event: StreamEvent) -> Vec<StreamEvent> {
        match event {
            StreamEvent::TextDelta { text } => {
                let pieces = self.splitter.push(&text);
                self.pieces(pieces)
            }
            StreamEvent::Done { stop_reason } => {
                let pieces = self.splitter.finish();
                let mut out = self.pieces(pieces);
                let stop_reason = if self.calls > 0 { StopReason::ToolUse } else { stop_reason };
                out.push(StreamEvent::Done { stop_reason });
                out
            }
            StreamEvent::Error { error } => {
                // The prose held back for a possible marker is still the model's; a call block
                // cut off by the failure is not run.
                let mut out: Vec<StreamEvent> = self
                    .splitter
                    .finish()
                    .into_iter()
                    .filter_map(|piece| match piece {
                        Piece::Text(text) => Some(StreamEvent::TextDelta { text }),
                        Piece::Call { .. } => None,
                    })
                    .collect();
                out.push(StreamEvent::Error { error });
                out
            }
            other => vec![other],
        }
    }

    fn pieces(&mut self, pieces: Vec<Piece>) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Text(text) => out.push(StreamEvent::TextDelta { text }),
                Piece::Call { dialect, body } => {
                    for call in parse_block(dialect, &body, &self.tools) {
                        let index = self.calls;
                        self.calls += 1;
                        let id = format!("textcall_{}", self.next_id.get());
                        self.next_id.set(self.next_id.get() + 1);
                        let json = match call.arguments {
                            Ok(value) => value.to_string(),
                            Err(problem) => problem,
                        };
                        out.push(StreamEvent::ToolCallStart { index, id, name: call.name });
                        out.push(StreamEvent::ToolCallDelta { index, json });
                        out.push(StreamEvent::ToolCallEnd { index });
                    }
                }
            }
        }
        out
    }
}
