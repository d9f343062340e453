//! Interfaces the host provides besides the vault: time and HTTP.
//!
//! The core never reads the system clock or opens a socket itself. In the browser these are
//! implemented in `src/wasm/` over `Date.now`/`setTimeout` and `fetch`; natively over the
//! system clock and reqwest; in tests by [`ManualClock`] and local servers.

mod clock;
mod http;

#[cfg(not(target_arch = "wasm32"))]
mod native_clock;
#[cfg(not(target_arch = "wasm32"))]
mod native_http;

pub use clock::{Clock, ManualClock};
pub use http::{cancellable, ByteStream, HttpClient, HttpRequest, HttpResponse};
#[cfg(not(target_arch = "wasm32"))]
pub use native_clock::SystemClock;
#[cfg(not(target_arch = "wasm32"))]
pub use native_http::ReqwestClient;
