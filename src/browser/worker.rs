//! The engine's worker from the page's side: a Web Worker on the worker
//! bundle (`sweep-worker_loader.js`, built by Trunk from
//! `src/bin/sweep-worker.rs`), fetched only when first needed, that runs a
//! sweep (`SweepWorker`), a tuning (`TuneWorker`) or reads or writes a
//! server's configuration
//! (`ConfigWorker`) off the page's thread and out of the page's own
//! module.
//!
//! Guarantees: the job is sent once the worker says it is ready; dropping
//! a handle terminates its worker at once (that is how a sweep is
//! cancelled), and nothing reaches the callback after it; a worker that
//! cannot start, or an answer that cannot be read, comes to the callback
//! as a failure naming why.

use sluice_engine::config::{Done, Job};
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
/// message, `ready`); every later message goes to `on_text`, a failure to
/// `on_failure`.
fn start(job: String, what: &'static str, on_text: impl Fn(String) + 'static, on_failure: impl Fn(String) + 'static) -> Result<Running, String> {
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
        let received = event.data().as_string().unwrap_or_default();
        // The job goes once the worker listens: sent before, it would be lost.
        if matches!(serde_json::from_str(&received), Ok(Report::Ready)) {
            ready.set(true);
            if let Err(e) = listener.post_message(&JsValue::from_str(&job)) {
                failed(format!("the {what} could not be sent: {e:?}"));
            }
            return;
        }
        on_text(received);
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

/// A sweep running in its worker; dropping it cancels the sweep.
pub struct SweepWorker(#[allow(dead_code)] Running);

impl SweepWorker {
    /// Starts `request` in a new worker; `on_report` gets every report.
    pub fn start(request: &Request, on_report: impl Fn(Report) + 'static) -> Result<SweepWorker, String> {
        let text = serde_json::to_string_pretty(request).map_err(|e| format!("the sweep could not be written: {e}"))?;
        let on_report = std::rc::Rc::new(on_report);
        let report = on_report.clone();
        let running = start(
            text,
            "sweep",
            move |received| match serde_json::from_str(&received) {
                Ok(r) => report(r),
                Err(e) => report(Report::Failed { why: format!("the worker's report could not be read: {e}") }),
            },
            move |why| on_report(Report::Failed { why }),
        )?;
        Ok(SweepWorker(running))
    }
}

/// A configuration read, or a block written, in its worker; dropping it
/// abandons the job.
pub struct ConfigWorker(#[allow(dead_code)] Running);

impl ConfigWorker {
    /// Starts `job` in a new worker; `on_done` gets its one answer.
    pub fn start(job: &Job, on_done: impl Fn(Done) + 'static) -> Result<ConfigWorker, String> {
        let text = serde_json::to_string(job).map_err(|e| format!("the configuration job could not be written: {e}"))?;
        let on_done = std::rc::Rc::new(on_done);
        let done = on_done.clone();
        let running = start(
            text,
            "configuration",
            move |received| match serde_json::from_str(&received) {
                Ok(d) => done(d),
                Err(e) => done(Done::Refused { why: format!("the worker's answer could not be read: {e}") }),
            },
            move |why| on_done(Done::Refused { why }),
        )?;
        Ok(ConfigWorker(running))
    }
}

/// A tuning running in its worker; dropping it cancels the tuning.
pub struct TuneWorker(#[allow(dead_code)] Running);

impl TuneWorker {
    /// Starts `request` in a new worker; `on_report` gets every report.
    pub fn start(request: &TuneRequest, on_report: impl Fn(TuneReport) + 'static) -> Result<TuneWorker, String> {
        let text = serde_json::to_string(request).map_err(|e| format!("the search could not be written: {e}"))?;
        let on_report = std::rc::Rc::new(on_report);
        let report = on_report.clone();
        let running = start(
            text,
            "search",
            move |received| match serde_json::from_str(&received) {
                Ok(r) => report(r),
                Err(e) => report(TuneReport::Failed { why: format!("the worker's report could not be read: {e}") }),
            },
            move |why| on_report(TuneReport::Failed { why }),
        )?;
        Ok(TuneWorker(running))
    }
}
