//! Lowering the calling thread's scheduling priority, one function over
//! the three systems' ways: on Linux its nice value (per thread there, and
//! inherited by the threads it starts), on macOS its QoS class, on Windows
//! its thread priority. A thread is only ever lowered, never raised back
//! (an unprivileged process cannot raise it), so only threads made for the
//! purpose are lowered: a host's low-priority call runs on one of its own,
//! and a live index's background work on its own threads.

/// How far to lower a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lowered {
    /// A call the host asked to run below its own work (`priority: 'low'`):
    /// nice 10, QoS utility, below normal.
    Call,
    /// Work no caller waits for (a live index's background sketches): nice
    /// 19, QoS background, lowest.
    Background,
}

/// Lowers the calling thread to `to`; a failure leaves it as it was (the
/// work runs all the same, at the priority it had).
pub fn lower_this_thread(to: Lowered) {
    imp::lower(to);
}

#[cfg(target_os = "linux")]
mod imp {
    use super::Lowered;

    pub fn lower(to: Lowered) {
        let nice = match to {
            Lowered::Call => 10,
            Lowered::Background => 19,
        };
        // SAFETY: plain syscalls on the calling thread (nice is per thread on Linux).
        unsafe {
            let tid = libc::gettid() as libc::id_t;
            if libc::getpriority(libc::PRIO_PROCESS, tid) < nice {
                libc::setpriority(libc::PRIO_PROCESS, tid, nice);
            }
        }
    }
}

#[cfg(target_vendor = "apple")]
mod imp {
    use super::Lowered;

    pub fn lower(to: Lowered) {
        let class = match to {
            Lowered::Call => libc::qos_class_t::QOS_CLASS_UTILITY,
            Lowered::Background => libc::qos_class_t::QOS_CLASS_BACKGROUND,
        };
        // SAFETY: sets the calling thread's own QoS class.
        unsafe {
            libc::pthread_set_qos_class_self_np(class, 0);
        }
    }
}

#[cfg(windows)]
mod imp {
    use super::Lowered;
    use windows_sys::Win32::System::Threading::{
        GetCurrentThread, SetThreadPriority, THREAD_PRIORITY_BELOW_NORMAL, THREAD_PRIORITY_LOWEST,
    };

    pub fn lower(to: Lowered) {
        let priority = match to {
            Lowered::Call => THREAD_PRIORITY_BELOW_NORMAL,
            Lowered::Background => THREAD_PRIORITY_LOWEST,
        };
        // SAFETY: the pseudo-handle of the calling thread needs no closing.
        unsafe {
            SetThreadPriority(GetCurrentThread(), priority);
        }
    }
}

#[cfg(not(any(target_os = "linux", target_vendor = "apple", windows)))]
mod imp {
    use super::Lowered;

    pub fn lower(_: Lowered) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn nice_of_this_thread() -> i32 {
        // SAFETY: reads the calling thread's nice value.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
    }

    #[test]
    fn a_thread_is_lowered_and_threads_it_starts_inherit_it_but_others_do_not() {
        let before = nice_of_this_thread();
        let (lowered, child) = std::thread::spawn(|| {
            lower_this_thread(Lowered::Call);
            let lowered = nice_of_this_thread();
            let child = std::thread::spawn(nice_of_this_thread).join().unwrap();
            lower_this_thread(Lowered::Background);
            (lowered, child)
        })
        .join()
        .unwrap();
        assert_eq!(lowered, 10.max(before));
        assert_eq!(child, lowered, "a thread started by a lowered thread runs as low");
        assert_eq!(nice_of_this_thread(), before, "only the thread that asked is lowered");
        let background = std::thread::spawn(|| {
            lower_this_thread(Lowered::Background);
            nice_of_this_thread()
        })
        .join()
        .unwrap();
        assert_eq!(background, 19);
    }
}
