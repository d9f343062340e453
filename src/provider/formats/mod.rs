//! Pure wire converters: request JSON out, server-sent events in. No HTTP, no clock, no
//! async — so each is tested from recorded streams.

pub mod anthropic;
pub mod gemini_schema;
pub mod openai;
pub mod responses;
mod think_tags;

use super::sse::SseEvent;
use crate::protocol::StreamEvent;

/// Turns one provider's server-sent events into [`StreamEvent`]s, one SSE event at a time.
///
/// A decoder emits `Done` exactly once, when the provider says the response is complete, and
/// `Error` when the provider reports a failure. A data payload that is not JSON is skipped:
/// compatible servers interleave keep-alives, and what matters is whether the stream reached
/// its end marker, which [`StreamDecoder::finish`] checks.
pub trait StreamDecoder {
    /// The events that the SSE event `event` (its type) with `data` produces.
    fn decode(&mut self, event: &str, data: &str) -> Vec<StreamEvent>;
    /// The body ended. Returns what is still owed: `Done` for a stream that completed without
    /// its final marker but is complete in substance, or an `Error` of kind `Network` for a
    /// stream cut short.
    fn finish(&mut self) -> Vec<StreamEvent>;
    /// Whether `Done` or `Error` was emitted; nothing follows either.
    fn is_finished(&self) -> bool;
    /// The events of a whole response that came as one JSON body (a request sent with
    /// `stream: false`), for a decoder that reads that shape; `None` for a body that is not
    /// such a response (an error in disguise).
    fn decode_whole(&mut self, _body: &serde_json::Value) -> Option<Vec<StreamEvent>> {
        None
    }
}

/// `t` as JSON, as written (0.2, not the f32's 0.20000000298…).
pub(crate) fn temperature(t: f32) -> serde_json::Value {
    t.to_string().parse::<f64>().map(serde_json::Value::from).unwrap_or(serde_json::Value::Null)
}

/// Decodes a whole recorded body at once: the events in `body` (SSE text) through `decoder`,
/// then [`StreamDecoder::finish`]. For tests and tools that replay recorded streams.
pub fn decode_recorded(decoder: &mut dyn StreamDecoder, body: &str) -> Vec<StreamEvent> {
    let stream = futures::stream::iter([Ok::<_, crate::Error>(body.as_bytes().to_vec())]);
    let events: Vec<_> = futures::executor::block_on(futures::StreamExt::collect::<Vec<_>>(super::sse::sse_events(
        futures::StreamExt::boxed_local(stream),
    )));
    decode_events(decoder, events.into_iter().flatten())
}

/// The [`StreamEvent`]s `decoder` makes of `events` (a body's SSE events, in order), then of the
/// body's end ([`StreamDecoder::finish`]). Nothing is decoded after `Done` or `Error`.
pub fn decode_events(decoder: &mut dyn StreamDecoder, events: impl IntoIterator<Item = SseEvent>) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    for event in events {
        if decoder.is_finished() {
            break;
        }
        out.extend(decoder.decode(&event.event, &event.data));
    }
    if !decoder.is_finished() {
        out.extend(decoder.finish());
    }
    out
}

/// A user message with a PDF after its text, for the wire-format tests.
#[cfg(test)]
pub(crate) fn pdf_message() -> crate::protocol::Message {
    use crate::protocol::{ContentBlock, Message, Role};
    Message {
        role: Role::User,
        content: vec![
            ContentBlock::text("Summarise"),
            ContentBlock::Document {
                media_type: "application/pdf".into(),
                data: "JVBERi0".into(),
                name: "q3.pdf".into(),
            },
        ],
    }
}
