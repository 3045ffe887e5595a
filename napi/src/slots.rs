//! Which calls run at once: the walk slots a call takes before it runs, and
//! the deadline on that wait; and the compile slots a call takes to parse
//! its options.
//!
//! Local and index walks share one pool: `cores - 1` at once (at least
//! one). A walk alone uses every core; while others wait their turn each
//! runs on one thread (`CallQueued`, see the core's `calls_in_flight`), so
//! a core stays free for the event loop without lowering the walks'
//! priority (which would let other programs on the machine starve them). Walks through a host's reader have their own pool: they
//! wait on JS, not on the CPU, and a reader's own code may call `find` while
//! its walk holds a slot, so a disk walk must never queue behind them. A
//! reader walk started from inside a reader call (`nested`, seen by the JS
//! side) takes no slot at all: the call it serves already holds one, and
//! waiting for another could deadlock once every slot is held that way.
//! No slot is held past the call's deadline or abort: the walks bound every
//! wait on the reader (see `storage::block_on`).

use std::time::Instant;
use tokio::sync::{Semaphore, SemaphorePermit};

/// Which pool a call takes its slot from.
pub enum Pool {
    /// A local or index walk.
    Walk,
    /// A walk through a host's reader.
    Reader,
    /// A reader walk started inside a reader call: no slot.
    Nested,
}

/// How many local or index walks run at once; the others wait their turn.
/// More at once only adds threads and memory (200 concurrent calls ran ~270
/// threads and starved the event loop for seconds), and one core is left
/// to the event loop.
fn walks() -> &'static Semaphore {
    static SLOTS: std::sync::OnceLock<Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| Semaphore::new(cores().saturating_sub(1).max(1)))
}

/// How many reader walks run at once: each holds one blocking thread that
/// mostly waits for JS answers, so more than cores, but still bounded.
fn readers() -> &'static Semaphore {
    static SLOTS: std::sync::OnceLock<Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| Semaphore::new((4 * cores()).max(8)))
}

/// How many calls parse their options (compile their patterns) at once.
pub fn compiles() -> &'static Semaphore {
    static SLOTS: std::sync::OnceLock<Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| Semaphore::new(cores().max(2)))
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Why no slot came.
pub enum NoSlot {
    /// The deadline passed while the call waited for its turn.
    TimedOut,
    /// The pool was closed (never happens: the pools live as long as the process).
    Closed,
}

/// Waits for a slot of `pool`, until `deadline` at most. `Ok(None)` for a
/// nested call, which takes none.
pub async fn take(pool: Pool, deadline: Option<Instant>) -> Result<Option<SemaphorePermit<'static>>, NoSlot> {
    // A walk waiting its turn is counted: the one that runs meanwhile takes one thread.
    let _queued = matches!(pool, Pool::Walk).then(agent_find_core::CallQueued::begin);
    let slots = match pool {
        Pool::Walk => walks(),
        Pool::Reader => readers(),
        Pool::Nested => return Ok(None),
    };
    let waiting = slots.acquire();
    let permit = match deadline {
        Some(at) => tokio::time::timeout_at(at.into(), waiting).await.map_err(|_| NoSlot::TimedOut)?,
        None => waiting.await,
    };
    permit.map(Some).map_err(|_| NoSlot::Closed)
}
