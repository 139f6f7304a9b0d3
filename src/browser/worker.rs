//! The engine's worker from the page's side: a Web Worker on the worker
//! bundle (`sweep-worker_loader.js`, built by Trunk from
//! `src/bin/sweep-worker.rs`), fetched only when first needed, that runs a
//! sweep (`SweepWorker`), a tuning (`TuneWorker`), reads an access log
//! (`LogWorker`), or reads or writes a server's configuration
//! (`ConfigWorker`) off the page's thread and out of the page's own
//! module.
//!
//! Guarantees: the job is sent once the worker says it is ready; dropping
//! a handle terminates its worker at once (that is how a sweep is
//! cancelled), and nothing reaches the callback after it; a worker that
//! cannot start, or an answer that cannot be read, comes to the callback
//! as a failure naming why.

use sluice_engine::config::{Done, Job};
use sluice_engine::scenario::{LogLists, LogReport};
use sluice_engine::sweep::{Report, Request};
use sluice_engine::tune::{TuneReport, TuneRequest};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

/// The worker's script, beside the page.
const SCRIPT: &str = "./sweep-worker_loader.js";

/// How long a worker may take to say it is ready (fetching and starting
/// its module) before it is taken to have failed: a module that cannot be
/// fetched or started raises nothing the page hears.
const READY_WITHIN_MS: u32 = 30_000;

/// A worker and the closures it calls; dropping it terminates the worker.
struct Running {
    worker: Worker,
    // Kept alive while the worker may call them.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
    _not_ready: gloo_timers::callback::Timeout,
}

/// Starts a worker that is sent `job` once it says it is ready (its first
/// message, `ready`); every later message goes to `on_data`, a failure to
/// `on_failure`.
fn start(job: JsValue, what: &'static str, on_data: impl Fn(JsValue) + 'static, on_failure: impl Fn(String) + 'static) -> Result<Running, String> {
    let worker = Worker::new(SCRIPT).map_err(|e| format!("the {what} worker could not start: {e:?}"))?;
    let on_failure = std::rc::Rc::new(on_failure);
    let failed = on_failure.clone();
    let listener = worker.clone();
    let ready = std::rc::Rc::new(std::cell::Cell::new(false));
    let (heard, late) = (ready.clone(), on_failure.clone());
    let not_ready = gloo_timers::callback::Timeout::new(READY_WITHIN_MS, move || {
        if !heard.get() {
            late(format!("the {what} worker did not start within {} s", READY_WITHIN_MS / 1000));
        }
    });
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let received = event.data();
        // The job goes once the worker listens: sent before, it would be lost.
        if received.as_string().is_some_and(|text| matches!(serde_json::from_str(&text), Ok(Report::Ready))) {
            ready.set(true);
            if let Err(e) = listener.post_message(&job) {
                failed(format!("the {what} could not be sent: {e:?}"));
            }
            return;
        }
        on_data(received);
    });
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| on_failure(format!("the {what} worker stopped with an error")));
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Running { worker, _on_message: on_message, _on_error: on_error, _not_ready: not_ready })
}

impl Drop for Running {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// Starts a worker on `job` (as JSON); each answer, read as an `A`, goes
/// to `on_answer`, and a failure (to start, to write the job, to read an
/// answer) as the answer `failed` makes of its why.
fn start_typed<A: serde::de::DeserializeOwned + 'static>(
    job: Result<String, serde_json::Error>,
    what: &'static str,
    failed: fn(String) -> A,
    on_answer: impl Fn(A) + 'static,
) -> Result<Running, String> {
    let text = job.map_err(|e| format!("the {what} could not be written: {e}"))?;
    let on_answer = std::rc::Rc::new(on_answer);
    let answer = on_answer.clone();
    start(
        JsValue::from_str(&text),
        what,
        move |received| match serde_json::from_str(&received.as_string().unwrap_or_default()) {
            Ok(a) => answer(a),
            Err(e) => answer(failed(format!("the worker's answer could not be read: {e}"))),
        },
        move |why| on_answer(failed(why)),
    )
}

/// A sweep running in its worker; dropping it cancels the sweep.
pub struct SweepWorker(#[allow(dead_code)] Running);

impl SweepWorker {
    /// Starts `request` in a new worker; `on_report` gets every report.
    pub fn start(request: &Request, on_report: impl Fn(Report) + 'static) -> Result<SweepWorker, String> {
        start_typed(serde_json::to_string_pretty(request), "sweep", |why| Report::Failed { why }, on_report).map(SweepWorker)
    }
}

/// A configuration read, or a block written, in its worker; dropping it
/// abandons the job.
pub struct ConfigWorker(#[allow(dead_code)] Running);

impl ConfigWorker {
    /// Starts `job` in a new worker; `on_done` gets its one answer.
    pub fn start(job: &Job, on_done: impl Fn(Done) + 'static) -> Result<ConfigWorker, String> {
        start_typed(serde_json::to_string(job), "configuration", |why| Done::Refused { why }, on_done).map(ConfigWorker)
    }
}

/// A tuning running in its worker; dropping it cancels the tuning.
pub struct TuneWorker(#[allow(dead_code)] Running);

impl TuneWorker {
    /// Starts `request` in a new worker; `on_report` gets every report.
    pub fn start(request: &TuneRequest, on_report: impl Fn(TuneReport) + 'static) -> Result<TuneWorker, String> {
        start_typed(serde_json::to_string(request), "search", |why| TuneReport::Failed { why }, on_report).map(TuneWorker)
    }
}

/// What reading a log in its worker comes to.
pub enum LogRead {
    /// So many bytes read, of so many.
    Reading { bytes: u64, of: u64 },
    /// The log's lines, and what the page says of them.
    Read { format: String, reordered: Option<String>, lists: LogLists },
    Failed(String),
}

/// An access log read in its worker; dropping it abandons the reading.
pub struct LogWorker(#[allow(dead_code)] Running);

impl LogWorker {
    /// Starts reading `file` in a new worker; `on_read` hears how far it
    /// got, then the lines or why not.
    pub fn start(file: &web_sys::File, on_read: impl Fn(LogRead) + 'static) -> Result<LogWorker, String> {
        let on_read = std::rc::Rc::new(on_read);
        let failed = on_read.clone();
        let unreadable = || LogRead::Failed("the worker's answer could not be read".into());
        start(
            file.into(),
            "log",
            move |data| {
                // The report comes as text, alone or first in the array
                // that brings a log's lists.
                let array = data.dyn_ref::<js_sys::Array>().cloned();
                let text = array.as_ref().map_or(data, |a| a.get(0)).as_string().unwrap_or_default();
                let read = match (serde_json::from_str(&text), array) {
                    (Ok(LogReport::Reading { bytes, of }), None) => LogRead::Reading { bytes, of },
                    (Ok(LogReport::Failed { why }), None) => LogRead::Failed(why),
                    (Ok(LogReport::Read { format, lines, key_names, reordered, .. }), Some(array)) => {
                        read_lists(&array, key_names, lines).map_or_else(unreadable, |lists| LogRead::Read { format, reordered, lists })
                    }
                    _ => unreadable(),
                };
                on_read(read)
            },
            move |why| failed(LogRead::Failed(why)),
        )
        .map(LogWorker)
    }
}

/// A log's lists as the worker sends them, after its report: typed arrays
/// of `lines` instants, keys (numbers into `key_names`) and service times.
fn read_lists(array: &js_sys::Array, key_names: Vec<String>, lines: u64) -> Option<LogLists> {
    let times_s = array.get(1).dyn_into::<js_sys::Float64Array>().ok()?.to_vec();
    let keys = array.get(2).dyn_into::<js_sys::Uint32Array>().ok()?.to_vec();
    let service_s = array.get(3).dyn_into::<js_sys::Float64Array>().ok()?.to_vec();
    (times_s.len() as u64 == lines).then_some(LogLists { times_s, key_names, keys, service_s })
}
