//! Work off the JS event loop: on tokio's blocking pool at the host's own
//! priority, or, for a call the host asked to run low, on a thread of its
//! own lowered first (a pooled thread, once lowered, could not be raised
//! back for the next call); a panic turned into an error either way.

use agent_find_core::{lower_this_thread, ErrorCode, FindError, Lowered};

fn panicked(why: impl std::fmt::Display) -> FindError {
    FindError::new(ErrorCode::FsError, format!("internal error in agent-find (please report it): {why}"))
}

/// Runs `work` on tokio's blocking pool; a panic in it becomes an `fs-error`
/// (it never takes Node down).
pub async fn off_the_loop<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, FindError> {
    tokio::task::spawn_blocking(work).await.map_err(panicked)
}

/// `off_the_loop`, on a new thread lowered to `Lowered::Call` (the threads a
/// walk starts from it inherit that on Linux).
pub async fn off_the_loop_low<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, FindError> {
    let (done, answer) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("agent-find-low".into()).spawn(move || {
        lower_this_thread(Lowered::Call);
        let _ = done.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
    });
    if let Err(e) = spawned {
        return Err(FindError::new(ErrorCode::FsError, format!("agent-find could not start a thread: {e}")));
    }
    match answer.await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) => Err(panicked("a low-priority call panicked")),
        Err(_) => Err(panicked("a low-priority call ended without an answer")),
    }
}
