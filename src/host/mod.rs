//! Interfaces the host provides besides the vault: time, HTTP, and the user (events,
//! approvals, questions).
//!
//! The core never reads the system clock or opens a socket itself. In the browser these are
//! implemented in `src/wasm/` over `Date.now`/`setTimeout` and `fetch`; natively over the
//! system clock and reqwest; in tests by [`ManualClock`] and local servers.

mod agent_host;
mod clock;
mod fallback_http;
mod http;
mod process;

#[cfg(not(target_arch = "wasm32"))]
mod native_clock;
#[cfg(not(target_arch = "wasm32"))]
mod native_http;
#[cfg(not(target_arch = "wasm32"))]
mod native_process;

pub use agent_host::{AgentHost, ChannelHost, SilentHost};
pub(crate) use clock::{days_from_civil, weekday_index, WEEKDAYS};
pub use clock::{
    local_datetime, local_ms, offset_datetime, utc_datetime, utc_offset_label, weekday, Clock, ManualClock,
};
pub use fallback_http::{FallbackClient, Transport};
pub use http::{cancellable, query_params, url_encode, ByteStream, HttpClient, HttpRequest, HttpResponse};
#[cfg(not(target_arch = "wasm32"))]
pub use native_clock::SystemClock;
#[cfg(not(target_arch = "wasm32"))]
pub use native_http::ReqwestClient;
#[cfg(not(target_arch = "wasm32"))]
pub use native_process::{ChildProcess, NativeLauncher};
pub use process::{LineProcess, ProcessLauncher};
