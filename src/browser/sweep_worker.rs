//! The sweep worker from the page's side: starts a Web Worker on the
//! worker bundle (`sweep-worker_loader.js`, built by Trunk from
//! `src/bin/sweep-worker.rs`), sends it a sweep once it says it is ready,
//! and hands each report it sends back to a callback.
//!
//! Guarantees: dropping the handle terminates the worker at once (that is
//! how a sweep is cancelled), and no report reaches the callback after it;
//! a worker that cannot start, or a report that cannot be read, comes to
//! the callback as a `failed` report naming why.

use sluice_engine::sweep::{Report, Request};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

/// The worker's script, beside the page.
const SCRIPT: &str = "./sweep-worker_loader.js";

/// A sweep running in its worker; dropping it cancels the sweep.
pub struct SweepWorker {
    worker: Worker,
    // Kept alive while the worker may call them.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl SweepWorker {
    /// Starts `request` in a new worker; `on_report` gets every report.
    pub fn start(request: &Request, on_report: impl Fn(Report) + 'static) -> Result<SweepWorker, String> {
        let text = serde_json::to_string_pretty(request).map_err(|e| format!("the sweep could not be written: {e}"))?;
        let worker = Worker::new(SCRIPT).map_err(|e| format!("the sweep worker could not start: {e:?}"))?;
        let on_report = std::rc::Rc::new(on_report);
        let report = on_report.clone();
        let listener = worker.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let received = event.data().as_string().unwrap_or_default();
            match serde_json::from_str(&received) {
                // The request goes once the worker listens: sent before,
                // it would be lost.
                Ok(Report::Ready) => {
                    if let Err(e) = listener.post_message(&JsValue::from_str(&text)) {
                        report(Report::Failed { why: format!("the sweep could not be sent: {e:?}") });
                    }
                }
                Ok(r) => report(r),
                Err(e) => report(Report::Failed { why: format!("the worker's report could not be read: {e}") }),
            }
        });
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            on_report(Report::Failed { why: "the sweep worker stopped with an error".into() });
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(SweepWorker { worker, _on_message: on_message, _on_error: on_error })
    }
}

impl Drop for SweepWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
