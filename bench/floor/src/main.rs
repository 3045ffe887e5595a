//! `bench-floor DIR [THREADS]`: lists DIR recursively with a minimal parallel
//! readdir and prints `<files> <dirs> <other>` (entries below DIR, `.git`
//! skipped, symlinks never followed). No matching, no ignore files, no stat:
//! the entry type comes from the directory listing itself.

use std::collections::VecDeque;
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread;

struct Queue {
    dirs: VecDeque<PathBuf>,
    /// Directories queued or being listed; the walk is over when it is 0.
    pending: usize,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().expect("usage: bench-floor DIR [THREADS]"));
    let threads = args
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| thread::available_parallelism().map_or(2, |n| n.get()));
    let queue = Mutex::new(Queue { dirs: VecDeque::from([root]), pending: 1 });
    let ready = Condvar::new();
    let (files, dirs, other) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let (mut f, mut d, mut o) = (0u64, 0u64, 0u64);
                let mut found = Vec::new();
                loop {
                    let dir = {
                        let mut q = queue.lock().unwrap();
                        loop {
                            if let Some(dir) = q.dirs.pop_front() {
                                break Some(dir);
                            }
                            if q.pending == 0 {
                                break None;
                            }
                            q = ready.wait(q).unwrap();
                        }
                    };
                    let Some(dir) = dir else { break };
                    if let Ok(entries) = fs::read_dir(&dir) {
                        for entry in entries.flatten() {
                            match entry.file_type() {
                                Ok(t) if t.is_dir() => {
                                    if entry.file_name() != ".git" {
                                        d += 1;
                                        found.push(entry.path());
                                    }
                                }
                                Ok(t) if t.is_file() => f += 1,
                                _ => o += 1,
                            }
                        }
                    }
                    let mut q = queue.lock().unwrap();
                    q.pending += found.len();
                    q.pending -= 1;
                    q.dirs.extend(found.drain(..));
                    drop(q);
                    ready.notify_all();
                }
                files.fetch_add(f, Ordering::Relaxed);
                dirs.fetch_add(d, Ordering::Relaxed);
                other.fetch_add(o, Ordering::Relaxed);
            });
        }
    });
    println!("{} {} {}", files.into_inner(), dirs.into_inner(), other.into_inner());
}
