//! The engine's worker: the engine, compiled to WebAssembly a second time,
//! in a Web Worker, fetched only when first needed. It runs a sweep off
//! the page's thread, so the canvas keeps moving; and it reads and writes
//! servers' configurations, so that their readers and writers stay out of
//! the page's own module.
//!
//! Protocol (JSON strings both ways): the worker says it is `ready` once
//! it listens; the page then posts one job. A
//! `sluice_engine::sweep::Request` is answered with
//! `sluice_engine::sweep::Report`s, one per replication and per point,
//! ending with `done` or `failed`; a `sluice_engine::tune::TuneRequest`
//! with `sluice_engine::tune::TuneReport`s, one per replication and per
//! value decided, ending with `done` or `failed`; a
//! `sluice_engine::config::Job` with one `sluice_engine::config::Done`.
//! The page ends a job by terminating the worker; it starts a new one for
//! the next.
//!
//! Guarantee: a job that cannot run gets one answer naming why (a `failed`
//! report, or `refused`), and nothing else; nothing here panics on what
//! the page sends.

use sluice_engine::config::Job;
use sluice_engine::sweep::{Report, Request, Runner};
use sluice_engine::tune::{TuneReport, TuneRequest, TuneRunner};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let post = |answer: Result<String, serde_json::Error>| {
            if let Ok(text) = answer {
                let _ = reply.post_message(&JsValue::from_str(&text));
            }
        };
        let text = event.data().as_string().unwrap_or_default();
        // A configuration job names itself (`"job"`); a tuning has its
        // `goal` and `require`; anything else is a sweep.
        if let Ok(job) = serde_json::from_str::<Job>(&text) {
            post(serde_json::to_string(&job.run()));
            return;
        }
        if let Ok(request) = serde_json::from_str::<TuneRequest>(&text) {
            match request.tuner() {
                Ok(tuner) => {
                    let mut runner = TuneRunner::new(tuner);
                    while let Some(report) = runner.step() {
                        post(serde_json::to_string(&report));
                    }
                }
                Err(why) => post(serde_json::to_string(&TuneReport::Failed { why: why.to_string() })),
            }
            return;
        }
        let plan = serde_json::from_str::<Request>(&text)
            .map_err(|e| format!("the sweep could not be read: {e}"))
            .and_then(|request| request.plan().map_err(|why| why.to_string()));
        match plan {
            Ok(plan) => {
                let mut runner = Runner::new(plan);
                while let Some(report) = runner.step() {
                    post(serde_json::to_string(&report));
                }
            }
            Err(why) => post(serde_json::to_string(&Report::Failed { why })),
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    if let Ok(text) = serde_json::to_string(&Report::Ready) {
        let _ = scope.post_message(&JsValue::from_str(&text));
    }
}

