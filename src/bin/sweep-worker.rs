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
//! `sluice_engine::config::Job` with one `sluice_engine::config::Done`;
//! a `File` (an access log) with `sluice_engine::scenario::LogReport`s,
//! `reading` as it goes, then `failed`, or `read` followed by the log's
//! lists in one array: `[report, times_s, keys, service_s]` (a
//! `Float64Array`, a `Uint32Array`, a `Float64Array`), so that a million
//! lines reach the page without a text round trip.
//! The page ends a job by terminating the worker; it starts a new one for
//! the next.
//!
//! Guarantee: a job that cannot run gets one answer naming why (a `failed`
//! report, or `refused`), and nothing else; nothing here panics on what
//! the page sends.

use sluice_engine::config::Job;
use sluice_engine::replay::{read_log as read_log_lines, KeyField};
use sluice_engine::scenario::{LogLists, LogReport};
use sluice_engine::sweep::{Report, Request, Runner};
use sluice_engine::tune::{TuneReport, TuneRequest, TuneRunner};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// A file's bytes read through, saying how far every fiftieth of the way.
struct Progress<'a, F: FnMut(usize)> {
    bytes: &'a [u8],
    at: usize,
    next: usize,
    report: F,
}

impl<F: FnMut(usize)> std::io::Read for Progress<'_, F> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::BufRead::fill_buf(self)?.len().min(out.len());
        out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        std::io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl<F: FnMut(usize)> std::io::BufRead for Progress<'_, F> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        let end = (self.at + (1 << 16)).min(self.bytes.len());
        Ok(&self.bytes[self.at..end])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.bytes.len());
        if self.at >= self.next {
            (self.report)(self.at);
            self.next = self.at + self.bytes.len() / 50 + 1;
        }
    }
}

/// Reads an access log (its format found from its first lines) into a
/// producer's lists, saying how far it got as it goes.
fn read_log(reply: &DedicatedWorkerGlobalScope, file: &web_sys::File) {
    let post = |report: &LogReport| {
        if let Ok(text) = serde_json::to_string(report) {
            let _ = reply.post_message(&JsValue::from_str(&text));
        }
    };
    let bytes = match web_sys::FileReaderSync::new().and_then(|reader| reader.read_as_array_buffer(file)) {
        Ok(buffer) => js_sys::Uint8Array::new(&buffer).to_vec(),
        Err(_) => return post(&LogReport::Failed { why: "the file could not be read".into() }),
    };
    let of = bytes.len() as u64;
    let progress = Progress { bytes: &bytes, at: 0, next: 0, report: |at: usize| post(&LogReport::Reading { bytes: at as u64, of }) };
    let (replay, format) = match read_log_lines(progress, None, &KeyField::Default) {
        Ok(read) => read,
        Err(why) => return post(&LogReport::Failed { why: why.to_string() }),
    };
    let lists = LogLists::of(&replay);
    let report = LogReport::Read {
        format: format.name().into(),
        lines: lists.times_s.len() as u64,
        key_names: lists.key_names.clone(),
        service: !lists.service_s.is_empty(),
        reordered: replay.reordered.map(|r| r.to_string()),
    };
    let Ok(text) = serde_json::to_string(&report) else { return };
    let answer = js_sys::Array::of4(
        &JsValue::from_str(&text),
        &js_sys::Float64Array::from(&lists.times_s[..]),
        &js_sys::Uint32Array::from(&lists.keys[..]),
        &js_sys::Float64Array::from(&lists.service_s[..]),
    );
    let _ = reply.post_message(&answer);
}

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let post = |answer: Result<String, serde_json::Error>| {
            if let Ok(text) = answer {
                let _ = reply.post_message(&JsValue::from_str(&text));
            }
        };
        if let Ok(file) = event.data().dyn_into::<web_sys::File>() {
            read_log(&reply, &file);
            return;
        }
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

