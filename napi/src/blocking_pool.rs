//! Work off the JS event loop: on tokio's blocking pool, at a lower
//! priority than the loop's thread, a panic turned into an error.

use agent_find_core::{ErrorCode, FindError};

/// Runs `work` on tokio's blocking pool; a panic in it becomes an `fs-error`
/// (it never takes Node down).
pub async fn off_the_loop<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, FindError> {
    tokio::task::spawn_blocking(work).await.map_err(|join| {
        FindError::new(ErrorCode::FsError, format!("internal error in agent-find (please report it): {join}"))
    })
}

/// Lowers the calling thread's priority to `WORKER_NICE` (Linux, where nice
/// is per thread and the walk's own threads inherit it). Never raised back:
/// the blocking pool runs only this crate's work.
pub fn yield_to_the_loop() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread; a failure leaves the priority as it was.
    unsafe {
        let tid = libc::gettid() as libc::id_t;
        if libc::getpriority(libc::PRIO_PROCESS, tid) < agent_find_core::limits::WORKER_NICE {
            libc::setpriority(libc::PRIO_PROCESS, tid, agent_find_core::limits::WORKER_NICE);
        }
    }
}
