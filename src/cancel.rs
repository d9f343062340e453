//! Cooperative cancellation shared by the loop, providers and tools.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// A cancellation flag that clones share. Cancelling wakes every task awaiting
/// [`CancelToken::cancelled`]; an HTTP client aborts its request when it fires.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Rc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
}

impl CancelToken {
    /// A token that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the token. Idempotent.
    pub fn cancel(&self) {
        if !self.inner.cancelled.replace(true) {
            for waker in self.inner.wakers.borrow_mut().drain(..) {
                waker.wake();
            }
        }
    }

    /// Whether the token has fired.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.get()
    }

    /// Resolves once the token fires (at once if it already has).
    pub fn cancelled(&self) -> Cancelled {
        Cancelled { token: self.clone() }
    }

    /// `Err(Error::Cancelled)` once the token has fired.
    pub fn check(&self) -> crate::Result<()> {
        if self.is_cancelled() {
            Err(crate::Error::Cancelled)
        } else {
            Ok(())
        }
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken").field("cancelled", &self.is_cancelled()).finish()
    }
}

/// The future returned by [`CancelToken::cancelled`].
pub struct Cancelled {
    token: CancelToken,
}

impl Future for Cancelled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.token.is_cancelled() {
            return Poll::Ready(());
        }
        let mut wakers = self.token.inner.wakers.borrow_mut();
        if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
            wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// Runs `future` unless `token` fires first, in which case it is dropped and
/// `Err(Error::Cancelled)` is returned.
pub async fn with_cancel<T>(token: &CancelToken, future: impl Future<Output = T>) -> crate::Result<T> {
    use futures::future::{select, Either};
    token.check()?;
    let cancelled = token.cancelled();
    futures::pin_mut!(future);
    match select(future, cancelled).await {
        Either::Left((value, _)) => Ok(value),
        Either::Right(((), _)) => Err(crate::Error::Cancelled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_wakes_waiters_and_aborts_the_race() {
        let token = CancelToken::new();
        let clone = token.clone();
        let result = futures::executor::block_on(async {
            let pending = futures::future::pending::<u32>();
            let (value, ()) = futures::join!(with_cancel(&token, pending), async { clone.cancel() });
            value
        });
        assert!(matches!(result, Err(crate::Error::Cancelled)));
        assert!(token.is_cancelled());
    }

    #[test]
    fn an_unfired_token_lets_the_future_finish() {
        let token = CancelToken::new();
        let result = futures::executor::block_on(with_cancel(&token, async { 7 }));
        assert_eq!(result.unwrap(), 7);
    }
}
