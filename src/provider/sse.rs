//! Server-sent events over a [`ByteStream`].
//!
//! Parsing is `eventsource-stream`'s (the WHATWG algorithm as a nom parser: events split across
//! chunks, a CR/LF pair split across chunks, CR, LF and CRLF line ends, comments, multi-line
//! `data`, UTF-8 split across chunks). This module only adapts its types to ours.

use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::{LocalBoxStream, StreamExt};

use crate::host::ByteStream;
use crate::{Error, Result};

/// One dispatched event: its type (`message` when the server named none) and its data, the
/// `data:` lines joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
    /// The last `id:` the stream set (empty when none): what a reconnect sends as
    /// `Last-Event-ID`.
    pub id: String,
    /// A `retry:` the event carried, in milliseconds: how long to wait before reconnecting.
    pub retry_ms: Option<u64>,
}

/// The events in `body`, each as soon as its closing blank line arrived. A transport error
/// ends the stream with that error; bytes that are not UTF-8 end it with [`Error::Network`].
/// An unterminated event at the very end is dropped, as the SSE standard says.
pub fn sse_events(body: ByteStream) -> LocalBoxStream<'static, Result<SseEvent>> {
    body.eventsource()
        .map(|item| match item {
            Ok(event) => Ok(SseEvent {
                event: event.event,
                data: event.data,
                id: event.id,
                retry_ms: event.retry.map(|d| d.as_millis() as u64),
            }),
            Err(EventStreamError::Transport(error)) => Err(error),
            Err(EventStreamError::Utf8(error)) => Err(Error::Network(format!("event stream is not UTF-8: {error}"))),
            Err(EventStreamError::Parser(error)) => Err(Error::Network(format!("unreadable event stream: {error}"))),
        })
        .boxed_local()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_from(chunks: Vec<&[u8]>) -> Vec<Result<SseEvent>> {
        let owned: Vec<Result<Vec<u8>>> = chunks.into_iter().map(|c| Ok(c.to_vec())).collect();
        futures::executor::block_on(sse_events(futures::stream::iter(owned).boxed_local()).collect())
    }

    fn ok(events: Vec<Result<SseEvent>>) -> Vec<(String, String)> {
        events.into_iter().map(|e| e.unwrap()).map(|e| (e.event, e.data)).collect()
    }

    const MIXED: &[u8] = b": a comment\r\nevent: first\r\ndata: line one\r\ndata: line two\r\n\r\n\
data: {\"x\": 1}\n\nevent: last\rdata:no space\r\r: trailing comment\n";

    fn expected() -> Vec<(String, String)> {
        vec![
            ("first".into(), "line one\nline two".into()),
            ("message".into(), "{\"x\": 1}".into()),
            ("last".into(), "no space".into()),
        ]
    }

    #[test]
    fn crlf_cr_lf_comments_and_multi_line_data() {
        assert_eq!(ok(events_from(vec![MIXED])), expected());
    }

    #[test]
    fn any_chunking_gives_the_same_events() {
        for size in 1..MIXED.len() {
            let chunks: Vec<&[u8]> = MIXED.chunks(size).collect();
            assert_eq!(ok(events_from(chunks)), expected(), "chunk size {size}");
        }
    }

    #[test]
    fn utf8_split_across_chunks_survives() {
        let text = "data: héllo ✓ 日本\n\n".as_bytes();
        for cut in 1..text.len() {
            let events = ok(events_from(vec![&text[..cut], &text[cut..]]));
            assert_eq!(events, vec![("message".to_string(), "héllo ✓ 日本".to_string())], "cut at {cut}");
        }
    }

    #[test]
    fn a_transport_error_ends_the_stream_with_it() {
        let items: Vec<Result<Vec<u8>>> =
            vec![Ok(b"data: one\n\n".to_vec()), Err(Error::Network("connection reset".into()))];
        let events: Vec<_> =
            futures::executor::block_on(sse_events(futures::stream::iter(items).boxed_local()).collect());
        assert_eq!(events[0].as_ref().unwrap().data, "one");
        assert!(matches!(&events[1], Err(Error::Network(m)) if m == "connection reset"));
    }
}
