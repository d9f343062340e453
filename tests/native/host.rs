//! The native host implementations: `ReqwestClient` streaming from a local server, and cancel.

use futures::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use vault_agent::cancel::CancelToken;
use vault_agent::host::{Clock, HttpClient, HttpRequest, ManualClock, ReqwestClient, SystemClock};
use vault_agent::Error;

/// A one-request HTTP server on 127.0.0.1 that sends a chunked body: the first chunk at once,
/// the rest only when `release` fires (never, if it is dropped).
async fn hold_open_server() -> (String, oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/stream", listener.local_addr().unwrap());
    let (release, released) = oneshot::channel::<()>();
    tokio::task::spawn_local(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 4096];
        let _ = socket.read(&mut buf).await.unwrap();
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        socket.write_all(b"c\r\nfirst chunk;\r\n").await.unwrap();
        socket.flush().await.unwrap();
        if released.await.is_ok() {
            socket.write_all(b"a\r\nlast chunk\r\n0\r\n\r\n").await.unwrap();
            socket.flush().await.unwrap();
        }
    });
    (url, release)
}

fn run_local<F: std::future::Future>(f: F) -> F::Output {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    tokio::task::LocalSet::new().block_on(&rt, f)
}

#[test]
fn reqwest_reads_a_body_incrementally() {
    run_local(async {
        let (url, release) = hold_open_server().await;
        let mut response = ReqwestClient::new().send(HttpRequest::get(url), &CancelToken::new()).await.unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.header("Content-Type"), Some("text/plain"));
        // The server sends the rest only after this chunk was read.
        let first = response.body.next().await.unwrap().unwrap();
        assert_eq!(first, b"first chunk;");
        release.send(()).unwrap();
        let mut rest = Vec::new();
        while let Some(chunk) = response.body.next().await {
            rest.extend(chunk.unwrap());
        }
        assert_eq!(rest, b"last chunk");
    });
}

#[test]
fn cancelling_ends_a_body_that_is_still_open() {
    run_local(async {
        let (url, _release) = hold_open_server().await;
        let cancel = CancelToken::new();
        let mut response = ReqwestClient::new().send(HttpRequest::get(url), &cancel).await.unwrap();
        assert!(response.body.next().await.unwrap().is_ok());
        let canceller = cancel.clone();
        tokio::task::spawn_local(async move { canceller.cancel() });
        assert!(matches!(response.body.next().await, Some(Err(Error::Cancelled))));
        assert!(response.body.next().await.is_none());
    });
}

#[test]
fn an_unreachable_server_is_a_network_error() {
    run_local(async {
        let err = ReqwestClient::new()
            .send(HttpRequest::get("http://127.0.0.1:9/nothing"), &CancelToken::new())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Network(_)), "{err:?}");
    });
}

#[test]
fn clocks_tell_time_and_sleep() {
    let manual = ManualClock::new(1_000);
    futures::executor::block_on(async {
        manual.sleep(500).await;
        manual.sleep(0).await;
    });
    assert_eq!(manual.now_ms(), 1_500);
    assert_eq!(manual.sleeps(), vec![500, 0]);

    run_local(async {
        let clock = SystemClock;
        let before = clock.now_ms();
        assert!(before > 1_600_000_000_000, "wall time since the epoch");
        clock.sleep(5).await;
        assert!(clock.now_ms() >= before + 5);
    });
}
