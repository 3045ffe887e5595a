//! The call plan, JS's `Plan`: a call's options read on the event loop,
//! parsed once off it (`prepare`), then run once (`run`) after waiting for a
//! walk slot until the call's deadline, or stopped (`cancel`).

use crate::blocking_pool::{off_the_loop, off_the_loop_low};
use crate::file_index::FileIndex;
use crate::job::{run_job, Job, UnparsedJob};
use crate::js_options::read_options;
use crate::js_reader::JsStorage;
use crate::results::{Failure, RunOutput};
use crate::slots;
use agent_find_core::{lock, CancelFlag, ErrorCode, FindError, Shared, Source};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

/// Where a plan is: options read (or refused while reading them), then
/// parsed into a job (or refused).
enum Stage {
    Read(std::result::Result<UnparsedJob, FindError>),
    /// `prepare` is parsing them on the blocking pool.
    Parsing,
    Parsed(std::result::Result<Job, FindError>),
}

/// A call, validated by `prepare` and then run once: the JS wrapper asks the
/// policy about `path` between the two.
#[napi]
pub struct Plan {
    stage: Arc<std::sync::Mutex<Stage>>,
    flag: CancelFlag,
    /// When the call was made: `timeoutMs` counts from here (the policy, and
    /// the wait for a walk slot, are part of the call).
    made: std::time::Instant,
    /// The host asked for the call to run below its own priority.
    low_priority: bool,
}

/// Parses the plan's input on the blocking pool, once; the later calls find it done.
async fn parse_once(stage: Arc<std::sync::Mutex<Stage>>) -> std::result::Result<Job, FindError> {
    let taken = match &mut *lock(&stage) {
        Stage::Parsed(job) => return job.clone(),
        Stage::Parsing => None,
        read => match std::mem::replace(read, Stage::Parsing) {
            Stage::Read(input) => Some(input),
            _ => None,
        },
    };
    let Some(input) = taken else {
        return Err(FindError::invalid_argument("internal: a plan was prepared twice at once; await `prepare()`"));
    };
    let job = match input {
        // As many compile at once as walk: each would otherwise hold a blocking-pool thread
        // (200 calls at once grew the pool by 100 threads).
        Ok(input) => match slots::compiles().acquire().await {
            Ok(_slot) => off_the_loop(move || input.parse()).await.and_then(|parsed| parsed),
            Err(_) => Err(FindError::new(ErrorCode::FsError, "internal error in agent-find: no compile slot")),
        },
        Err(e) => Err(e),
    };
    *lock(&stage) = Stage::Parsed(job.clone());
    job
}

#[napi]
impl Plan {
    /// `purpose` is `"find"`, `"findFiles"` or `"search"`;
    /// `reader`, the host's storage as `js/readers/adapter.js` adapts it;
    /// `lowPriority`, the host's `priority: 'low'`. Only reads the options
    /// (cheap); `prepare` validates them. Never throws: see `error`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        options: Unknown,
        purpose: String,
        reader: Option<Object>,
        index: Option<&FileIndex>,
        low_priority: Option<bool>,
    ) -> Self {
        let input = read_options(&options).and_then(|fields| {
            let source = match (reader, index) {
                (Some(reader), _) => {
                    let storage = JsStorage::from_js(&reader).map_err(|e| {
                        FindError::invalid_argument(format!("`reader` must have list, stat and read functions: {e}"))
                    })?;
                    Source::Storage(Shared(Arc::new(storage)))
                }
                (None, Some(index)) => Source::Index(index.opened()?),
                (None, None) => Source::Disk,
            };
            Ok(UnparsedJob { fields, source, purpose })
        });
        Plan {
            stage: Arc::new(std::sync::Mutex::new(Stage::Read(input))),
            flag: CancelFlag::default(),
            made: std::time::Instant::now(),
            low_priority: low_priority == Some(true),
        }
    }

    /// Validates the options and compiles the patterns, on the blocking
    /// pool; resolves when done (then `error` and `path` answer).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn prepare<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        let stage = Arc::clone(&self.stage);
        env.spawn_future(async move {
            let _ = parse_once(stage).await;
            Ok(())
        })
    }

    /// Why the options were refused, if they were.
    #[napi(getter)]
    pub fn error(&self) -> Option<Failure> {
        match &*lock(&self.stage) {
            Stage::Read(Err(e)) | Stage::Parsed(Err(e)) => Some(e.clone().into()),
            _ => None,
        }
    }

    /// The logical, resolved search path the policy is asked about (once prepared).
    #[napi(getter)]
    pub fn path(&self) -> Option<String> {
        Some(match &*lock(&self.stage) {
            Stage::Parsed(Ok(Job::Find(c, _))) => c.scope.logical(),
            Stage::Parsed(Ok(Job::Search(c))) => c.scope.logical(),
            _ => return None,
        })
    }

    /// Stops a running call; it resolves with an `aborted` error.
    #[napi]
    pub fn cancel(&self) {
        self.flag.cancel();
    }

    /// Runs the call (preparing it first if `prepare` was not awaited).
    /// `nested`: the JS side runs this call from inside a reader's call
    /// (see `slots`).
    #[napi(ts_return_type = "Promise<RunOutput>")]
    pub fn run<'env>(&self, env: &'env Env, nested: Option<bool>) -> Result<PromiseRaw<'env, RunOutput>> {
        let stage = Arc::clone(&self.stage);
        let flag = self.flag.clone();
        let made = self.made;
        let low_priority = self.low_priority;
        env.spawn_future(async move {
            let job = match parse_once(stage).await {
                Ok(job) => job,
                Err(e) => return Ok(RunOutput::failed(e)),
            };
            let cancel = job.slot_wait_cancel(flag.clone(), made);
            let pool = match (job.source(), nested) {
                (Source::Storage(_), Some(true)) => slots::Pool::Nested,
                (Source::Storage(_), _) => slots::Pool::Reader,
                _ => slots::Pool::Walk,
            };
            let _slot = match slots::take(pool, cancel.deadline()).await {
                Ok(slot) => slot,
                // The deadline passed while waiting: the same answer as a walk that ran out of time.
                Err(slots::NoSlot::TimedOut) => {
                    return Ok(RunOutput::failed(cancel.check().err().unwrap_or_else(FindError::aborted)))
                }
                Err(slots::NoSlot::Closed) => {
                    return Ok(RunOutput::failed(FindError::new(
                        ErrorCode::FsError,
                        "internal error in agent-find: no walk slot",
                    )))
                }
            };
            let run = move || run_job(&job, flag, made);
            let done = match low_priority {
                true => off_the_loop_low(run).await,
                false => off_the_loop(run).await,
            };
            Ok(done.unwrap_or_else(RunOutput::failed))
        })
    }
}
