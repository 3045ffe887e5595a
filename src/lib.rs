//! The napi binding: converts JS values into the Rust types of the modules
//! below and results back, and runs each search on tokio's blocking pool so
//! that the JS event loop never waits for a walk. No search logic lives here.

pub mod args;
pub mod cancel;
pub mod entry;
pub mod error;
pub mod filter;
pub mod find;
pub mod hint;
pub mod options;
pub mod page;
pub mod pattern;
pub mod render;
pub mod result;
pub mod sandbox;
pub mod search;
pub mod sort;
pub mod walk;

use args::Value;
use cancel::{Cancel, CancelFlag};
use entry::{EntryKind, Found, Meta};
use error::{ErrorCode, FindError};
use find::FindConfig;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use options::Purpose;
use result::{FindOutcome, OmittedDir, Truncation};
use std::sync::Arc;

#[napi(object, js_name = "FindEntry")]
pub struct JsFindEntry {
    pub path: String,
    #[napi(js_name = "type", ts_type = "'file' | 'dir' | 'symlink'")]
    pub kind: String,
    pub size: f64,
    pub mtime_ms: f64,
}

#[napi(object, js_name = "OmittedDir")]
pub struct JsOmittedDir {
    pub dir: String,
    pub count: f64,
}

#[napi(object, js_name = "FindResult")]
pub struct JsFindResult {
    pub path: String,
    pub entries: Vec<JsFindEntry>,
    pub matched: f64,
    pub truncated: bool,
    #[napi(ts_type = "'limit' | 'maximum' | 'bytes'")]
    pub truncated_by: Option<String>,
    pub notice: Option<String>,
    pub hint: Option<String>,
    pub omitted: Option<Vec<JsOmittedDir>>,
}

/// A failure as data: the JS wrapper turns it into a `FindFilesError`.
#[napi(object)]
pub struct Failure {
    pub code: String,
    pub message: String,
}

/// What `FindPlan.run` resolves to: exactly one of the three is set.
#[napi(object)]
pub struct RunOutput {
    pub result: Option<JsFindResult>,
    pub paths: Option<Vec<String>>,
    pub error: Option<Failure>,
}

impl From<FindError> for Failure {
    fn from(e: FindError) -> Self {
        Failure { code: e.code.as_str().to_string(), message: e.message }
    }
}

impl From<FindOutcome> for JsFindResult {
    fn from(o: FindOutcome) -> Self {
        JsFindResult {
            path: o.path,
            entries: o
                .entries
                .into_iter()
                .map(|f| JsFindEntry {
                    kind: f.kind.as_str().to_string(),
                    size: f.size() as f64,
                    mtime_ms: f.mtime_ms(),
                    path: f.path,
                })
                .collect(),
            matched: o.matched as f64,
            truncated: o.truncated_by.is_some(),
            truncated_by: o.truncated_by.map(|t| t.as_str().to_string()),
            notice: o.notice,
            hint: o.hint,
            omitted: (!o.omitted.is_empty())
                .then(|| o.omitted.into_iter().map(|d| JsOmittedDir { dir: d.dir, count: d.count as f64 }).collect()),
        }
    }
}

impl From<JsFindResult> for FindOutcome {
    fn from(r: JsFindResult) -> Self {
        let entries: Vec<Found> = r
            .entries
            .into_iter()
            .map(|e| Found {
                kind: match e.kind.as_str() {
                    "dir" => EntryKind::Dir,
                    "symlink" => EntryKind::Symlink,
                    _ => EntryKind::File,
                },
                meta: Some(Meta { size: e.size.max(0.0) as u64, mtime_ms: e.mtime_ms }),
                path: e.path,
            })
            .collect();
        let matched = r.matched.max(0.0) as usize;
        let truncated_by = r.truncated_by.as_deref().and_then(Truncation::parse).filter(|_| r.truncated);
        let notice = r.notice.or_else(|| render::default_notice(truncated_by?, matched, entries.len()));
        FindOutcome {
            path: r.path,
            matched,
            truncated_by,
            notice,
            hint: r.hint,
            omitted: r
                .omitted
                .unwrap_or_default()
                .into_iter()
                .map(|d| OmittedDir { dir: d.dir, count: d.count.max(0.0) as usize })
                .collect(),
            entries,
        }
    }
}

/// Lists longer than this are refused rather than copied.
const MAX_LIST: u32 = 10_000;

fn to_value(value: &Unknown, top: bool) -> Result<Value> {
    Ok(match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Value::Absent,
        ValueType::Boolean => Value::Bool(unsafe { value.cast::<bool>()? }),
        ValueType::Number => Value::Number(unsafe { value.cast::<f64>()? }),
        ValueType::String => Value::Text(unsafe { value.cast::<String>()? }),
        ValueType::Object if top && value.is_array()? => {
            let array: Object = unsafe { value.cast()? };
            let len = array.get_array_length()?;
            if len > MAX_LIST {
                return Ok(Value::Other("array of more than 10000 items"));
            }
            let mut items = Vec::with_capacity(len as usize);
            for i in 0..len {
                items.push(to_value(&array.get_element::<Unknown>(i)?, false)?);
            }
            Value::List(items)
        }
        ValueType::Object if value.is_array()? => Value::Other("array"),
        ValueType::Object => Value::Other("object"),
        ValueType::Function => Value::Other("function"),
        ValueType::Symbol => Value::Other("symbol"),
        ValueType::BigInt => Value::Other("bigint"),
        _ => Value::Other("value"),
    })
}

fn read_options(options: &Unknown) -> std::result::Result<Vec<(String, Value)>, FindError> {
    let fail = |e: napi::Error| FindError::invalid_argument(format!("cannot read the options object: {e}"));
    if options.get_type().map_err(fail)? != ValueType::Object || options.is_array().map_err(fail)? {
        return Err(FindError::invalid_argument("options must be an object such as { pattern: '**/*.ts' }"));
    }
    let object: Object = unsafe { options.cast() }.map_err(fail)?;
    let mut fields = Vec::new();
    for key in Object::keys(&object).map_err(fail)? {
        let value = object.get_named_property::<Unknown>(&key).map_err(fail)?;
        fields.push((key, to_value(&value, true).map_err(fail)?));
    }
    Ok(fields)
}

/// A validated search, ready to run once: the JS wrapper asks the policy
/// about `path` between building it and running it.
#[napi]
pub struct FindPlan {
    config: std::result::Result<Arc<FindConfig>, FindError>,
    purpose: Purpose,
    flag: CancelFlag,
}

#[napi]
impl FindPlan {
    /// `purpose` is `"find"` or `"findFiles"`. Never throws: see `error`.
    #[napi(constructor)]
    pub fn new(options: Unknown, purpose: String) -> Self {
        let purpose = if purpose == "findFiles" { Purpose::FindFiles } else { Purpose::Find };
        let config = read_options(&options).and_then(|fields| options::parse(&fields, purpose)).map(Arc::new);
        FindPlan { config, purpose, flag: CancelFlag::default() }
    }

    /// Why the options were refused, if they were.
    #[napi(getter)]
    pub fn error(&self) -> Option<Failure> {
        self.config.as_ref().err().map(|e| e.clone().into())
    }

    /// The logical, resolved search path the policy is asked about.
    #[napi(getter)]
    pub fn path(&self) -> Option<String> {
        self.config.as_ref().ok().map(|c| c.logical_path.to_string_lossy().into_owned())
    }

    /// Stops a running search; it resolves with an `aborted` error.
    #[napi]
    pub fn cancel(&self) {
        self.flag.cancel();
    }

    #[napi(ts_return_type = "Promise<RunOutput>")]
    pub fn run<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, RunOutput>> {
        let config = self.config.clone();
        let purpose = self.purpose;
        let flag = self.flag.clone();
        env.spawn_future(async move {
            let config = match config {
                Ok(config) => config,
                Err(e) => return Ok(failed(e)),
            };
            let job = tokio::task::spawn_blocking(move || {
                let cancel = Cancel::new(flag, config.timeout_ms);
                find::run(&config, &cancel).map(|outcome| (outcome, config))
            });
            Ok(match job.await {
                Ok(Ok((outcome, _))) if purpose == Purpose::Find => {
                    RunOutput { result: Some(outcome.into()), paths: None, error: None }
                }
                Ok(Ok((outcome, config))) => {
                    let paths = outcome
                        .entries
                        .iter()
                        .map(|f| config.logical_path.join(&f.path).to_string_lossy().into_owned())
                        .collect();
                    RunOutput { result: None, paths: Some(paths), error: None }
                }
                Ok(Err(e)) => failed(e),
                Err(join) => failed(FindError::new(
                    ErrorCode::FsError,
                    format!("internal error in agent-find (please report it): {join}"),
                )),
            })
        })
    }
}

fn failed(e: FindError) -> RunOutput {
    RunOutput { result: None, paths: None, error: Some(e.into()) }
}

/// The text a model reads for a `FindResult`.
#[napi(catch_unwind)]
pub fn format_find_result(result: JsFindResult) -> String {
    render::render(&result.into())
}
