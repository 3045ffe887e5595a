//! A host's JS reader as a `Storage`. `index.js` adapts the reader into three
//! functions that always resolve (never reject) with plain data: listings
//! as columns, failures as `{ code, message }`. Each call from the walk goes
//! to the JS thread through a napi threadsafe function, and its promise is
//! awaited here; the answer is copied into Rust values on the JS thread.

use crate::dir::Stat;
use crate::entry::{EntryKind, Meta};
use crate::storage::{error_from_code, Listed, Reply, Storage};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use std::io;
use std::sync::Arc;

/// A JS function of one path, resolving to `R`. Weak: a finished call's
/// reader must not keep the process alive until the plan is collected.
type Call<R> = ThreadsafeFunction<String, Promise<R>, String, Status, false, true>;

pub struct JsStorage {
    list: Arc<Call<ListReply>>,
    stat: Arc<Call<StatReply>>,
    read: Arc<Call<ReadReply>>,
    concurrency: usize,
}

/// The most calls in flight a reader may ask for.
pub const MAX_CONCURRENCY: u32 = 1024;

impl JsStorage {
    /// From the adapted reader `{ list, stat, read, concurrency }` (see `index.js`).
    pub fn from_js(reader: &Object) -> Result<JsStorage> {
        fn call<R: FromNapiValue + 'static>(reader: &Object, name: &str) -> Result<Arc<Call<R>>> {
            let f: Function<String, Promise<R>> = reader.get_named_property(name)?;
            Ok(Arc::new(f.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?))
        }
        let concurrency: u32 = reader.get_named_property("concurrency")?;
        Ok(JsStorage {
            list: call(reader, "list")?,
            stat: call(reader, "stat")?,
            read: call(reader, "read")?,
            concurrency: concurrency.clamp(1, MAX_CONCURRENCY) as usize,
        })
    }
}

/// Calls `f` with `path` on the JS thread and awaits the promise it returns.
fn ask<R: FromNapiValue + Send + 'static>(
    f: &Arc<Call<R>>,
    path: &str,
) -> impl std::future::Future<Output = io::Result<R>> {
    let (f, path) = (Arc::clone(f), path.to_string());
    async move {
        let promise = f.call_async_catch(path).await.map_err(unanswered)?;
        promise.await.map_err(unanswered)
    }
}

fn unanswered(e: napi::Error) -> io::Error {
    io::Error::other(format!("the reader did not answer: {e}"))
}

impl Storage for JsStorage {
    fn list(&self, dir: &str) -> Reply<Vec<Listed>> {
        let asked = ask(&self.list, dir);
        Box::pin(async move { asked.await?.0 })
    }

    fn stat(&self, path: &str) -> Reply<Stat> {
        let asked = ask(&self.stat, path);
        Box::pin(async move { asked.await?.0 })
    }

    fn read(&self, path: &str) -> Reply<Vec<u8>> {
        let asked = ask(&self.read, path);
        Box::pin(async move { asked.await?.0 })
    }

    fn concurrency(&self) -> usize {
        self.concurrency
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
    match code {
        0 => Ok(EntryKind::File),
        1 => Ok(EntryKind::Dir),
        2 => Ok(EntryKind::Symlink),
        _ => Err(io::Error::other(format!("unknown entry type code {code}"))),
    }
}

fn meta(kind: EntryKind, size: f64, mtime_ms: f64) -> Meta {
    let size = if kind == EntryKind::Dir || !size.is_finite() || size < 0.0 { 0 } else { size as u64 };
    Meta { size, mtime_ms: if mtime_ms.is_finite() { mtime_ms } else { 0.0 } }
}

/// A listing: `{ names (joined by NUL), kinds, sizes, mtimes }` or a failure.
struct ListReply(io::Result<Vec<Listed>>);

impl FromNapiValue for ListReply {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        let reply = unsafe { Object::from_napi_value(env, value)? };
        if let Some(e) = failure(&reply)? {
            return Ok(ListReply(Err(e)));
        }
        let names: String = reply.get_named_property("names")?;
        let kinds: Uint8ArraySlice = reply.get_named_property("kinds")?;
        let sizes: Float64ArraySlice = reply.get_named_property("sizes")?;
        let mtimes: Float64ArraySlice = reply.get_named_property("mtimes")?;
        let count = kinds.len();
        let names: Vec<&str> = if count == 0 { Vec::new() } else { names.split('\0').collect() };
        if names.len() != count || sizes.len() != count || mtimes.len() != count {
            let why = "a name holds a NUL character, which no name may";
            return Ok(ListReply(Err(io::Error::other(why))));
        }
        let listed = (0..count)
            .map(|i| {
                let kind = kind_of(kinds[i])?;
                Ok(Listed { name: names[i].to_string(), kind, meta: meta(kind, sizes[i], mtimes[i]) })
            })
            .collect();
        Ok(ListReply(listed))
    }
}

/// A stat: `{ type (a kind code), size, mtime }` or a failure.
struct StatReply(io::Result<Stat>);

impl FromNapiValue for StatReply {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        let reply = unsafe { Object::from_napi_value(env, value)? };
        if let Some(e) = failure(&reply)? {
            return Ok(StatReply(Err(e)));
        }
        let code: u32 = reply.get_named_property("type")?;
        let size: f64 = reply.get_named_property("size")?;
        let mtime: f64 = reply.get_named_property("mtime")?;
        Ok(StatReply(kind_of(code.min(255) as u8).map(|kind| Stat { kind: Some(kind), meta: meta(kind, size, mtime) })))
    }
}

/// File contents: `{ data: Uint8Array }` or a failure.
struct ReadReply(io::Result<Vec<u8>>);

impl FromNapiValue for ReadReply {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        let reply = unsafe { Object::from_napi_value(env, value)? };
        if let Some(e) = failure(&reply)? {
            return Ok(ReadReply(Err(e)));
        }
        let data: Uint8ArraySlice = reply.get_named_property("data")?;
        Ok(ReadReply(Ok(data.to_vec())))
    }
}
