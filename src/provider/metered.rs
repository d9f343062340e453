//! What a session's model calls took, by what asked for them: the chat's tasks, suggestions as
//! the user types, inline edits. A user of a paid API reads it to know what the plugin spent;
//! the task's own meter says what one task cost.

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{EventStream, MediaSupport, ModelPrice, ModelProvider, ServedWindow};
use crate::cancel::CancelToken;
use crate::protocol::{ModelRequest, StreamEvent, Usage};

/// What asked for a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum CallPurpose {
    /// A chat's tasks: their steps, sub-tasks, summaries, memory and screening calls.
    Chat,
    /// Suggestions as the user types.
    Suggestions,
    /// Inline edits of a selection.
    InlineEdit,
}

/// The model calls made for one purpose.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Spend {
    pub purpose: CallPurpose,
    /// Calls started, stopped ones included.
    pub requests: u32,
    /// The tokens the servers reported (a call stopped before its end reports what it had, or
    /// nothing).
    pub usage: Usage,
    /// What they cost in US dollars, at the user's price or each model's; `None` once a call's
    /// model had no known price.
    pub cost: Option<f64>,
}

/// The running totals of a session, one [`Spend`] a purpose.
#[derive(Debug, Default)]
pub struct SpendMeter {
    totals: RefCell<Vec<Spend>>,
}

impl SpendMeter {
    /// Every purpose that made a call, in the order of [`CallPurpose`].
    pub fn totals(&self) -> Vec<Spend> {
        let mut totals = self.totals.borrow().clone();
        totals.sort_by_key(|s| s.purpose);
        totals
    }

    /// Adds what an earlier meter counted (the plugin restarts its core to give memory back;
    /// the session's totals go on).
    pub fn carry(&self, earlier: &[Spend]) {
        for spent in earlier {
            self.add(spent.purpose, |total| {
                total.requests += spent.requests;
                total.usage += spent.usage;
                total.cost = total.cost.zip(spent.cost).map(|(now, then)| now + then);
            });
        }
    }

    fn add(&self, purpose: CallPurpose, change: impl FnOnce(&mut Spend)) {
        let mut totals = self.totals.borrow_mut();
        let at = match totals.iter().position(|s| s.purpose == purpose) {
            Some(at) => at,
            None => {
                totals.push(Spend { purpose, requests: 0, usage: Usage::default(), cost: Some(0.0) });
                totals.len() - 1
            }
        };
        change(&mut totals[at]);
    }
}

/// A provider whose calls count toward a [`SpendMeter`].
pub struct MeteredProvider {
    inner: Rc<dyn ModelProvider>,
    meter: Rc<SpendMeter>,
    purpose: CallPurpose,
    /// The user's own price, which wins over the model's.
    price: Option<ModelPrice>,
}

impl MeteredProvider {
    /// `inner`'s calls, counted for `purpose` in `meter` at `price` (the user's own; `None`:
    /// the price of the model each call names, as `inner` knows it).
    pub fn new(
        inner: Rc<dyn ModelProvider>,
        meter: Rc<SpendMeter>,
        purpose: CallPurpose,
        price: Option<ModelPrice>,
    ) -> MeteredProvider {
        MeteredProvider { inner, meter, purpose, price }
    }
}

#[async_trait(?Send)]
impl ModelProvider for MeteredProvider {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn media(&self) -> MediaSupport {
        self.inner.media()
    }

    fn price(&self, id: &str) -> Option<ModelPrice> {
        self.inner.price(id)
    }

    async fn served_window(&self, id: &str, cancel: &CancelToken) -> Option<ServedWindow> {
        self.inner.served_window(id, cancel).await
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> EventStream {
        let purpose = self.purpose;
        let price = self.price.or_else(|| self.inner.price(request.model.as_deref().unwrap_or(self.inner.model())));
        self.meter.add(purpose, |total| total.requests += 1);
        let meter = self.meter.clone();
        let events = self.inner.stream(request, cancel).await;
        events
            .inspect(move |event| {
                if let StreamEvent::Usage { usage } = event {
                    meter.add(purpose, |total| {
                        total.usage += *usage;
                        total.cost = total.cost.zip(price).map(|(cost, price)| cost + price.cost(usage));
                    });
                }
            })
            .boxed_local()
    }
}
