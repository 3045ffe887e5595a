//! Locks that outlive a panic: a thread that panicked while holding a lock
//! leaves it poisoned, and the data is still what the code wrote last (every
//! writer here leaves it consistent at each step), so callers take it as is
//! instead of propagating the panic into the host process.

use std::sync::{LockResult, Mutex, MutexGuard};

/// Locks `mutex`, poisoned or not.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    unpoisoned(mutex.lock())
}

/// The value of a lock operation (`read`, `write`, `wait`, `into_inner`),
/// poisoned or not.
pub fn unpoisoned<T>(result: LockResult<T>) -> T {
    result.unwrap_or_else(std::sync::PoisonError::into_inner)
}
