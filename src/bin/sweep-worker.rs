//! The sweep worker: the engine, compiled to WebAssembly a second time, in
//! a Web Worker, so a sweep runs off the page's thread and the canvas
//! keeps moving.
//!
//! Protocol (JSON strings both ways): the worker says it is `ready` once
//! it listens; the page then posts one `sluice_engine::sweep::Request`;
//! the worker answers with
//! `sluice_engine::sweep::Report`s, one per replication and per point,
//! ending with `done` or `failed`. The page cancels by terminating the
//! worker; it starts a new one for the next sweep.
//!
//! Guarantee: a request that cannot run gets one `failed` report naming
//! why, and nothing else; nothing here panics on what the page sends.

use sluice_engine::sweep::{Report, Request, Runner};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let post = |report: &Report| {
            if let Ok(text) = serde_json::to_string(report) {
                let _ = reply.post_message(&JsValue::from_str(&text));
            }
        };
        let text = event.data().as_string().unwrap_or_default();
        let plan = serde_json::from_str::<Request>(&text)
            .map_err(|e| format!("the sweep could not be read: {e}"))
            .and_then(|request| request.plan().map_err(|why| why.to_string()));
        match plan {
            Ok(plan) => {
                let mut runner = Runner::new(plan);
                while let Some(report) = runner.step() {
                    post(&report);
                }
            }
            Err(why) => post(&Report::Failed { why }),
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    if let Ok(text) = serde_json::to_string(&Report::Ready) {
        let _ = scope.post_message(&JsValue::from_str(&text));
    }
}
