//! The calls running in this process, counted so that work nobody waits
//! for (a live index's first build, its background sketches) steps aside
//! while any call runs: no call is slower because an index exists. A
//! call counts from its preparation to its answer (`CallInFlight`, held by
//! `call::Prepared`); background work asks `wait_while_calls` between
//! folders or files.
//!
//! The calls waiting for their turn are counted too (`CallQueued`, held by
//! a front door that queues calls, such as the binding's walk slots): while
//! more than one call is in flight, each walk runs on one thread
//! (`crowded`, read by `walk::thread_count`), so that with at most
//! `cores - 1` walks at once a core stays free for the host's own thread
//! (Node's event loop) without lowering the walks' priority.

use crate::sync::{lock, unpoisoned};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

static RUNNING: Mutex<usize> = Mutex::new(0);
static QUIET: Condvar = Condvar::new();
static QUEUED: AtomicUsize = AtomicUsize::new(0);

/// One call waiting for its turn, counted while it is held.
#[derive(Debug)]
pub struct CallQueued(());

impl CallQueued {
    pub fn begin() -> CallQueued {
        QUEUED.fetch_add(1, Ordering::SeqCst);
        CallQueued(())
    }
}

impl Drop for CallQueued {
    fn drop(&mut self) {
        QUEUED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// More than one call is in flight (running, or waiting for its turn).
pub fn crowded() -> bool {
    QUEUED.load(Ordering::SeqCst) > 0 || *lock(&RUNNING) > 1
}

/// One call, counted while it is held.
#[derive(Debug)]
pub struct CallInFlight(());

impl CallInFlight {
    pub fn begin() -> CallInFlight {
        *lock(&RUNNING) += 1;
        CallInFlight(())
    }
}

impl Drop for CallInFlight {
    fn drop(&mut self) {
        let mut running = lock(&RUNNING);
        *running -= 1;
        if *running == 0 {
            QUIET.notify_all();
        }
    }
}

/// Waits until no call runs, or `stop` says to give up (asked every
/// `STOP_CHECK`); whether it waited at all.
pub fn wait_while_calls(stop: &dyn Fn() -> bool) -> bool {
    const STOP_CHECK: Duration = Duration::from_millis(50);
    let mut running = lock(&RUNNING);
    if *running == 0 {
        return false;
    }
    while *running > 0 && !stop() {
        running = unpoisoned(QUIET.wait_timeout(running, STOP_CHECK)).0;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    // One test: the count is process-wide, and tests run on threads of one process.
    #[test]
    fn background_work_waits_for_the_calls_and_for_its_stop() {
        assert!(!wait_while_calls(&|| false), "no call: no wait");
        let call = CallInFlight::begin();
        let released = Arc::new(AtomicBool::new(false));
        let waiter = {
            let released = Arc::clone(&released);
            std::thread::spawn(move || {
                let waited = wait_while_calls(&|| false);
                (waited, released.load(Ordering::SeqCst))
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        released.store(true, Ordering::SeqCst);
        drop(call);
        let (waited, after_release) = waiter.join().unwrap();
        assert!(waited && after_release, "the waiter went on only once the call ended");

        let _call = CallInFlight::begin();
        let start = Instant::now();
        assert!(wait_while_calls(&|| start.elapsed() > Duration::from_millis(120)));
        assert!(start.elapsed() < Duration::from_secs(2), "a stop ends the wait though a call still runs");
    }
}
