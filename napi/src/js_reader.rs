//! A host's JS reader as a `Storage`. `js/readers/adapter.js` adapts the reader into three
//! functions that always resolve (never reject) with plain data: listings
//! as columns, failures as `{ code, message }`. Each call from the walk goes
//! to the JS thread through a napi threadsafe function, and its promise is
//! awaited here; the answer is copied into Rust values on the JS thread.

use agent_find_core::{error_from_code, EntryKind, Listed, Meta, Reply, Stat, Storage};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use std::io;
use std::sync::Arc;

/// A JS function of one path, resolving to an answer of `T`. Weak: a
/// finished call's reader must not keep the process alive until the plan is
/// collected.
type Call<T> = ThreadsafeFunction<String, Promise<Answer<T>>, String, Status, false, true>;

/// `(path, offset, length)`: a ranged read (see `Storage::read_range`).
type RangeArgs = FnArgs<(String, f64, f64)>;
type RangeCall = ThreadsafeFunction<RangeArgs, Promise<Answer<Vec<u8>>>, RangeArgs, Status, false, true>;

pub struct JsStorage {
    list: Arc<Call<Vec<Listed>>>,
    stat: Arc<Call<Stat>>,
    read: Arc<Call<Vec<u8>>>,
    /// Present when the reader's `read` takes `{ offset, length }` (`ranges: true`).
    read_range: Option<Arc<RangeCall>>,
    concurrency: usize,
    mounted: bool,
}

/// The most calls in flight a reader may ask for (the JS adapter checks it
/// as `MAX_READER_CONCURRENCY`).
pub const MAX_CONCURRENCY: u32 = 1024;

impl JsStorage {
    /// From the adapted reader `{ list, stat, read, concurrency, mounted }` (see `js/readers/adapter.js`).
    pub fn from_js(reader: &Object) -> Result<JsStorage> {
        fn call<T: FromAnswer + 'static>(reader: &Object, name: &str) -> Result<Arc<Call<T>>> {
            let f: Function<String, Promise<Answer<T>>> = reader.get_named_property(name)?;
            Ok(Arc::new(f.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?))
        }
        let concurrency: u32 = reader.get_named_property("concurrency")?;
        let mounted: bool = reader.get_named_property("mounted")?;
        let read_range = match reader.get::<Function<RangeArgs, Promise<Answer<Vec<u8>>>>>("readRange")? {
            Some(f) => Some(Arc::new(f.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?)),
            None => None,
        };
        Ok(JsStorage {
            list: call(reader, "list")?,
            stat: call(reader, "stat")?,
            read: call(reader, "read")?,
            read_range,
            concurrency: concurrency.clamp(1, MAX_CONCURRENCY) as usize,
            mounted,
        })
    }
}

/// Calls `f` with `path` on the JS thread and awaits the promise it returns.
fn ask<T: FromAnswer + Send + 'static>(f: &Arc<Call<T>>, path: &str) -> Reply<T> {
    let (f, path) = (Arc::clone(f), path.to_string());
    Box::pin(async move {
        let promise = f.call_async_catch(path).await.map_err(unanswered)?;
        promise.await.map_err(unanswered)?.0
    })
}

fn unanswered(e: napi::Error) -> io::Error {
    io::Error::other(format!("the reader did not answer: {e}"))
}

impl Storage for JsStorage {
    fn list(&self, dir: &str) -> Reply<Vec<Listed>> {
        ask(&self.list, dir)
    }

    fn stat(&self, path: &str) -> Reply<Stat> {
        ask(&self.stat, path)
    }

    fn read(&self, path: &str) -> Reply<Vec<u8>> {
        ask(&self.read, path)
    }

    fn ranges(&self) -> bool {
        self.read_range.is_some()
    }

    fn read_range(&self, path: &str, offset: u64, length: u64) -> Reply<Vec<u8>> {
        let Some(f) = &self.read_range else { return ask(&self.read, path) };
        let (f, path) = (Arc::clone(f), path.to_string());
        Box::pin(async move {
            let promise = f.call_async_catch((path, offset as f64, length as f64).into()).await.map_err(unanswered)?;
            promise.await.map_err(unanswered)?.0
        })
    }

    fn concurrency(&self) -> usize {
        self.concurrency
    }

    fn mounted(&self) -> bool {
        self.mounted
    }
}

/// `{ code, message }` as the `io::Error` it stands for, if the reply is one.
fn failure(reply: &Object) -> Result<Option<io::Error>> {
    Ok(match reply.get::<String>("code")? {
        Some(code) => Some(error_from_code(&code, reply.get::<String>("message")?.unwrap_or(code.clone()))),
        None => None,
    })
}

fn kind_of(code: u8) -> io::Result<EntryKind> {
    crate::columns::KIND_CODES
        .get(usize::from(code))
        .copied()
        .ok_or_else(|| io::Error::other(format!("unknown entry type code {code}")))
}

fn meta(kind: EntryKind, size: f64, mtime_ms: f64) -> Meta {
    let size = if kind == EntryKind::Dir || !size.is_finite() || size < 0.0 { 0 } else { size as u64 };
    Meta { size, mtime_ms: if mtime_ms.is_finite() { mtime_ms } else { 0.0 } }
}

/// A reader's answer: `{ code, message }` for a failure, else the value's
/// own fields (see `FromAnswer`), copied into Rust on the JS thread.
struct Answer<T>(io::Result<T>);

/// A value as its answer object holds it.
trait FromAnswer: Sized {
    fn from_answer(reply: &Object) -> Result<io::Result<Self>>;
}

impl<T: FromAnswer> FromNapiValue for Answer<T> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        let reply = unsafe { Object::from_napi_value(env, value)? };
        Ok(Answer(match failure(&reply)? {
            Some(e) => Err(e),
            None => T::from_answer(&reply)?,
        }))
    }
}

/// A listing: `{ names (joined by NUL), kinds, sizes, mtimes }`.
impl FromAnswer for Vec<Listed> {
    fn from_answer(reply: &Object) -> Result<io::Result<Self>> {
        let names: String = reply.get_named_property("names")?;
        let kinds: Uint8ArraySlice = reply.get_named_property("kinds")?;
        let sizes: Float64ArraySlice = reply.get_named_property("sizes")?;
        let mtimes: Float64ArraySlice = reply.get_named_property("mtimes")?;
        let count = kinds.len();
        let names: Vec<&str> = if count == 0 { Vec::new() } else { names.split('\0').collect() };
        if names.len() != count || sizes.len() != count || mtimes.len() != count {
            return Ok(Err(io::Error::other("a name holds a NUL character, which no name may")));
        }
        Ok((0..count)
            .map(|i| {
                let kind = kind_of(kinds[i])?;
                Ok(Listed { name: names[i].to_string(), kind, meta: meta(kind, sizes[i], mtimes[i]) })
            })
            .collect())
    }
}

/// A stat: `{ type (a kind code), size, mtime }`.
impl FromAnswer for Stat {
    fn from_answer(reply: &Object) -> Result<io::Result<Self>> {
        let code: u32 = reply.get_named_property("type")?;
        let size: f64 = reply.get_named_property("size")?;
        let mtime: f64 = reply.get_named_property("mtime")?;
        Ok(kind_of(code.min(255) as u8).map(|kind| Stat { kind: Some(kind), meta: meta(kind, size, mtime) }))
    }
}

/// File contents: `{ data: Uint8Array }`.
impl FromAnswer for Vec<u8> {
    fn from_answer(reply: &Object) -> Result<io::Result<Self>> {
        let data: Uint8ArraySlice = reply.get_named_property("data")?;
        Ok(Ok(data.to_vec()))
    }
}
