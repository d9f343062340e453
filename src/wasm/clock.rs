//! [`Clock`] over `Date.now`, `setTimeout`, and — for a bare yield — `scheduler.yield()` or a
//! `MessageChannel` message.

use async_trait::async_trait;
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::MessageChannel;

use crate::host::Clock;

/// The browser's clock. `sleep` yields to the event loop, so the UI keeps running.
#[derive(Debug, Default, Clone, Copy)]
pub struct JsClock;

#[async_trait(?Send)]
impl Clock for JsClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn utc_offset_minutes(&self, at_ms: u64) -> i32 {
        // `getTimezoneOffset` is UTC less local time, in minutes, for that date (DST included).
        -(js_sys::Date::new(&JsValue::from_f64(at_ms as f64)).get_timezone_offset() as i32)
    }

    async fn sleep(&self, ms: u64) {
        if ms == 0 {
            if let Some(turn) = next_turn() {
                // Either way the promise only resolves: nothing to report if it cannot.
                let _ = JsFuture::from(turn).await;
                return;
            }
        }
        gloo_timers::future::TimeoutFuture::new(ms.min(u32::MAX as u64) as u32).await;
    }
}

/// A promise that resolves on a later turn of the event loop, after pending input and rendering
/// had their chance — without `setTimeout(0)`'s clamp to 4 ms once timers nest (a build that
/// yields a hundred times would sleep for 0.4 s). `scheduler.yield()` where the browser has it
/// (Chromium, so Obsidian's Electron; its continuation keeps the task's priority), else a
/// `MessageChannel` message (every browser and WebView). `None` when neither exists (a worker
/// without them), and the caller falls back to a timer.
fn next_turn() -> Option<Promise> {
    let global = js_sys::global();
    if let Ok(scheduler) = Reflect::get(&global, &JsValue::from_str("scheduler")) {
        if let Ok(yield_fn) = Reflect::get(&scheduler, &JsValue::from_str("yield")) {
            if let Some(yield_fn) = yield_fn.dyn_ref::<Function>() {
                if let Ok(promise) = yield_fn.call0(&scheduler) {
                    if let Ok(promise) = promise.dyn_into::<Promise>() {
                        return Some(promise);
                    }
                }
            }
        }
    }
    let channel = MessageChannel::new().ok()?;
    let promise = Promise::new(&mut |resolve, _reject| {
        channel.port1().set_onmessage(Some(&resolve));
    });
    channel.port2().post_message(&JsValue::UNDEFINED).ok()?;
    Some(promise)
}
