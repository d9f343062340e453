//! The vault's index as everyone who searches it shares it.

use std::cell::RefCell;
use std::rc::Rc;

use super::SearchIndex;
use crate::{Error, Result};

/// The index of one vault, shared by the search modal, the indexer that keeps it current and
/// the agent's tools. Empty until built or loaded. Borrows last one call and never span an
/// await: a build makes a new index and swaps it in, so searches keep answering meanwhile.
#[derive(Clone, Default)]
pub struct SharedIndex(Rc<RefCell<Option<SearchIndex>>>);

impl SharedIndex {
    /// A handle with no index yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `index` in place (after a build or load).
    pub fn replace(&self, index: SearchIndex) {
        *self.0.borrow_mut() = Some(index);
    }

    /// Whether an index is in place.
    pub fn is_ready(&self) -> bool {
        self.0.borrow().is_some()
    }

    /// Runs `f` on the index. Fails when there is none yet, or when it is being changed.
    pub fn read<T>(&self, f: impl FnOnce(&SearchIndex) -> Result<T>) -> Result<T> {
        let guard = self.0.try_borrow().map_err(|_| busy())?;
        f(guard.as_ref().ok_or_else(not_ready)?)
    }

    /// Runs `f` on the index to change it. Fails when there is none yet, or when it is in use.
    pub fn write<T>(&self, f: impl FnOnce(&mut SearchIndex) -> Result<T>) -> Result<T> {
        let mut guard = self.0.try_borrow_mut().map_err(|_| busy())?;
        f(guard.as_mut().ok_or_else(not_ready)?)
    }
}

fn busy() -> Error {
    Error::Invalid("the search index is busy".into())
}

fn not_ready() -> Error {
    Error::Invalid("the search index is not built yet".into())
}
