//! Cooperative cancellation shared by the loop, providers and tools.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
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
    /// Tokens made by [`CancelToken::child`], fired with this one.
    children: RefCell<Vec<Weak<Inner>>>,
}

impl CancelToken {
    /// A token that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the token, and every child token made from it. Idempotent.
    pub fn cancel(&self) {
        if !self.inner.cancelled.replace(true) {
            for waker in self.inner.wakers.borrow_mut().drain(..) {
                waker.wake();
            }
            let children: Vec<Weak<Inner>> = self.inner.children.borrow_mut().drain(..).collect();
            for inner in children.iter().filter_map(Weak::upgrade) {
                CancelToken { inner }.cancel();
            }
        }
    }

    /// A token that fires when this one does (a sub-task's: cancelling the parent cancels
    /// it), and can also fire alone without touching this one.
    pub fn child(&self) -> CancelToken {
        let child = CancelToken::new();
        if self.is_cancelled() {
            child.cancel();
        } else {
            let mut children = self.inner.children.borrow_mut();
            children.retain(|c| c.strong_count() > 0);
            children.push(Rc::downgrade(&child.inner));
        }
        child
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
    fn a_child_fires_with_its_parent_but_not_the_other_way() {
        let parent = CancelToken::new();
        let child = parent.child();
        let grandchild = child.child();
        let sibling = parent.child();
        sibling.cancel();
        assert!(!parent.is_cancelled() && !child.is_cancelled());
        parent.cancel();
        assert!(child.is_cancelled() && grandchild.is_cancelled());
        assert!(parent.child().is_cancelled(), "a child of a fired token starts fired");
    }

    #[test]
    fn an_unfired_token_lets_the_future_finish() {
        let token = CancelToken::new();
        let result = futures::executor::block_on(with_cancel(&token, async { 7 }));
        assert_eq!(result.unwrap(), 7);
    }
}
