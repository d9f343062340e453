//! [`FaultyVault`]: a real [`Vault`] (a [`MemoryVault`] underneath) that fails on a schedule,
//! to test that every save and every task loses nothing when the host fails.
//!
//! Only calls that change the vault (`write`, `write_binary`, `rename`, `trash`, `remove`,
//! `mkdir`) are counted and may fail. The faults are what a host really does:
//! - [`Fault::Eio`]: the call fails and changes nothing;
//! - [`Fault::DiskFull`]: a write stores only the first half of its bytes, in place (as
//!   Obsidian's adapter writes), then fails with "no space left on device"; other calls fail
//!   as with `Eio`;
//! - [`Fault::Abort`]: the process dies before the call: it and every later call, reads
//!   included, fail until [`FaultyVault::restart`] (a new process over the same files).

use std::cell::{Cell, RefCell};

use async_trait::async_trait;
use vault_agent::vault::{Listing, MemoryVault, Stat, Vault, VaultPath};
use vault_agent::{Error, Result};

/// What an injected failure does. See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Eio,
    DiskFull,
    Abort,
}

#[derive(Debug, Clone, Copy)]
enum Schedule {
    Never,
    /// The call with this index (counted over the vault's life) fails.
    At(usize, Fault),
    /// Each call fails with probability 1 in `one_in`, drawn from a seeded xorshift.
    Random {
        state: u64,
        one_in: u64,
        fault: Fault,
    },
}

/// A vault that fails on a schedule. See the module docs.
pub struct FaultyVault {
    inner: MemoryVault,
    schedule: Cell<Schedule>,
    calls: Cell<usize>,
    aborted: Cell<bool>,
    injected: RefCell<Vec<String>>,
}

impl FaultyVault {
    /// Over `inner`, failing nothing until told to.
    pub fn new(inner: MemoryVault) -> Self {
        FaultyVault {
            inner,
            schedule: Cell::new(Schedule::Never),
            calls: Cell::new(0),
            aborted: Cell::new(false),
            injected: RefCell::new(Vec::new()),
        }
    }

    /// The `n`-th changing call from now (0 = the next one) fails with `fault`.
    pub fn fail_at(&self, n: usize, fault: Fault) {
        self.schedule.set(Schedule::At(self.calls.get() + n, fault));
    }

    /// From now, each changing call fails with `fault` with probability `1 / one_in`, in an
    /// order fixed by `seed`.
    pub fn fail_randomly(&self, seed: u64, one_in: u64, fault: Fault) {
        self.schedule.set(Schedule::Random { state: seed.max(1), one_in: one_in.max(1), fault });
    }

    /// A new process over the same files: nothing fails any more, and an aborted vault is
    /// readable again.
    pub fn restart(&self) {
        self.schedule.set(Schedule::Never);
        self.aborted.set(false);
    }

    /// How many changing calls were made (failed ones included).
    pub fn changes(&self) -> usize {
        self.calls.get()
    }

    /// What was injected, one line per fault: `"<fault> <call> <path>"`.
    pub fn injected(&self) -> Vec<String> {
        self.injected.borrow().clone()
    }

    /// The files as they are, past any fault.
    pub fn inner(&self) -> &MemoryVault {
        &self.inner
    }

    fn alive(&self, path: &VaultPath) -> Result<()> {
        if self.aborted.get() {
            return Err(io("read", path, "the process was stopped"));
        }
        Ok(())
    }

    /// Counts a changing call and says which fault, if any, it meets.
    fn next_fault(&self, op: &'static str, path: &VaultPath) -> Result<Option<Fault>> {
        self.alive(path)?;
        let call = self.calls.get();
        self.calls.set(call + 1);
        let fault = match self.schedule.get() {
            Schedule::Never => None,
            Schedule::At(n, fault) => (n == call).then_some(fault),
            Schedule::Random { mut state, one_in, fault } => {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                self.schedule.set(Schedule::Random { state, one_in, fault });
                (state % one_in == 0).then_some(fault)
            }
        };
        if let Some(fault) = fault {
            self.injected.borrow_mut().push(format!("{fault:?} {op} {path}"));
            if fault == Fault::Abort {
                self.aborted.set(true);
                return Err(io(op, path, "the process was stopped"));
            }
        }
        Ok(fault)
    }

    /// Fails a call that is not a write, or lets it through.
    fn plain(&self, op: &'static str, path: &VaultPath) -> Result<()> {
        match self.next_fault(op, path)? {
            None => Ok(()),
            Some(Fault::DiskFull) => Err(io(op, path, "no space left on device (os error 28)")),
            Some(_) => Err(io(op, path, "input/output error (os error 5)")),
        }
    }

    async fn write_bytes(&self, path: &VaultPath, data: &[u8]) -> Result<()> {
        match self.next_fault("write", path)? {
            None => self.inner.write_binary(path, data).await,
            Some(Fault::DiskFull) => {
                // In place, as a host without atomic writes leaves it.
                self.inner.write_binary(path, &data[..data.len() / 2]).await?;
                Err(io("write", path, "no space left on device (os error 28)"))
            }
            Some(_) => Err(io("write", path, "input/output error (os error 5)")),
        }
    }
}

fn io(op: &'static str, path: &VaultPath, message: &str) -> Error {
    Error::Io { op, path: path.to_string(), message: message.into() }
}

#[async_trait(?Send)]
impl Vault for FaultyVault {
    async fn read(&self, path: &VaultPath) -> Result<String> {
        self.alive(path)?;
        self.inner.read(path).await
    }

    async fn read_binary(&self, path: &VaultPath) -> Result<Vec<u8>> {
        self.alive(path)?;
        self.inner.read_binary(path).await
    }

    async fn write(&self, path: &VaultPath, content: &str) -> Result<()> {
        self.write_bytes(path, content.as_bytes()).await
    }

    async fn write_binary(&self, path: &VaultPath, data: &[u8]) -> Result<()> {
        self.write_bytes(path, data).await
    }

    async fn list(&self, dir: &VaultPath) -> Result<Listing> {
        self.alive(dir)?;
        self.inner.list(dir).await
    }

    async fn stat(&self, path: &VaultPath) -> Result<Option<Stat>> {
        self.alive(path)?;
        self.inner.stat(path).await
    }

    async fn mkdir(&self, path: &VaultPath) -> Result<()> {
        self.plain("mkdir", path)?;
        self.inner.mkdir(path).await
    }

    async fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<()> {
        self.plain("rename", from)?;
        self.inner.rename(from, to).await
    }

    async fn trash(&self, path: &VaultPath) -> Result<()> {
        self.plain("trash", path)?;
        self.inner.trash(path).await
    }

    async fn remove(&self, path: &VaultPath) -> Result<()> {
        self.plain("remove", path)?;
        self.inner.remove(path).await
    }
}
