//! Stopping a search: a flag the JS side sets (AbortSignal) and an optional
//! deadline (`timeoutMs`), checked by every walker thread as it goes.

use crate::error::{FindError, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A deadline past any call's life, for a `timeoutMs` too large to add to the clock.
const FAR: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Shared between the JS-facing handle and the walker threads.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// What a walk checks to know it must stop.
#[derive(Debug, Clone)]
pub struct Cancel {
    flag: CancelFlag,
    deadline: Option<(Instant, u64)>,
    /// Set by the search itself once it has learned enough (see `stopping`).
    enough: Option<CancelFlag>,
}

impl Cancel {
    pub fn new(flag: CancelFlag, timeout_ms: Option<u64>) -> Self {
        Cancel::since(flag, timeout_ms, Instant::now())
    }

    /// With the deadline counted from `start` (when the call was made, so
    /// the wait for the policy and for a walk slot counts too).
    pub fn since(flag: CancelFlag, timeout_ms: Option<u64>, start: Instant) -> Self {
        let deadline = timeout_ms.map(|ms| (start.checked_add(Duration::from_millis(ms)).unwrap_or(start + FAR), ms));
        Cancel { flag, deadline, enough: None }
    }

    /// When the deadline passes, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline.map(|(at, _)| at)
    }

    /// The same, also stopped by `enough`: for a walk that may end as soon as
    /// its selector has what it wants. It then ends with `aborted`, which the
    /// caller tells apart by `enough.is_set()`.
    pub fn stopping(&self, enough: CancelFlag) -> Cancel {
        Cancel { enough: Some(enough), ..self.clone() }
    }

    /// The same without its deadline, and the deadline: for a search that
    /// answers with what it found by then (`partial`) instead of failing.
    pub fn without_deadline(&self) -> (Cancel, Option<Instant>) {
        (Cancel { deadline: None, ..self.clone() }, self.deadline())
    }

    pub fn never() -> Self {
        Cancel::new(CancelFlag::default(), None)
    }

    /// True once the caller aborted (not merely once the deadline passed).
    pub fn is_aborted_by_caller(&self) -> bool {
        self.flag.is_set()
    }

    /// `Err(aborted)` once the flag is set or the deadline has passed.
    pub fn check(&self) -> Result<()> {
        if self.flag.is_set() || self.enough.as_ref().is_some_and(CancelFlag::is_set) {
            return Err(FindError::aborted());
        }
        match self.deadline {
            Some((at, ms)) if Instant::now() >= at => Err(FindError::timed_out(ms)),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn flag_and_deadline_abort() {
        let flag = CancelFlag::default();
        let c = Cancel::new(flag.clone(), None);
        assert!(c.check().is_ok());
        flag.cancel();
        assert_eq!(c.check().unwrap_err().code, ErrorCode::Aborted);
        let t = Cancel::new(CancelFlag::default(), Some(0));
        let err = t.check().unwrap_err();
        assert_eq!(err.code, ErrorCode::Aborted);
        assert!(err.message.contains("timeoutMs"));
        assert!(Cancel::never().check().is_ok());
        let enough = CancelFlag::default();
        let stopping = Cancel::never().stopping(enough.clone());
        assert!(stopping.check().is_ok());
        enough.cancel();
        assert!(stopping.check().is_err() && !stopping.is_aborted_by_caller());
    }
}
