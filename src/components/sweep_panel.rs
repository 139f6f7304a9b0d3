//! The Sweep panel: one parameter varied over a range, each value run
//! several times in the sweep worker, the chosen metric charted with its
//! 95% band, the theory's curve dashed where the queue has a closed form,
//! and the value now in the inspector marked.
//!
//! Guarantees:
//! - The sweep runs in a Web Worker: the canvas keeps moving. Cancel, a
//!   new sweep or closing the panel terminates the worker at once.
//! - The form is checked before anything runs; a bad field is named.
//! - Clicking a point on the chart, or "Use" in its row of the table,
//!   loads that value into the scenario as one undoable edit.
//! - The table exports as CSV (what `sluice sweep --format csv` writes)
//!   and the chart as PNG.
//! - It speaks words: the field and the metrics as the inspector and the
//!   engine word them (`Metric::words`, `field_words`), their names in a
//!   tooltip. A target level is drawn across the chart and the value
//!   where the mean and its 95% band cross it said beneath; the metric's
//!   axis may be logarithmic. A second metric ("And") is drawn on its own
//!   axis at the right and listed in the table beside the first.
//! - "Find the setting" searches the same range for the smallest (or
//!   largest) value whose metric keeps the target with 95% confidence
//!   (`sluice tune`), in the worker, with progress and Cancel; the values
//!   it tried are marked on the chart, and "Use" loads its answer as one
//!   undoable edit.
//! - A second field named under "Across" makes the sweep a map: every pair
//!   of values run, each cell coloured by the metric (`PhaseMap`), a
//!   recovery metric's by stable, recovered or collapsed.

use std::rc::Rc;

use sluice_engine::playground::SweepTicket;
use sluice_engine::numbers::{as_written, four_figures, three_figures};
use sluice_engine::sweep::{field_words, metrics, NodeField, Report, Request, SweepResult};
use sluice_engine::Scenario;
use gloo_events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::browser::clock::now_ms;
use crate::browser::keep;
use crate::browser::worker::{SweepWorker, TuneWorker};
use crate::view::tune::{answer_words, TunePhase, TuneRun};
use sluice_engine::tune::{Goal, Tried};
use crate::components::phase_map::PhaseMap;
use crate::components::sweep_chart::{draw, Look, XMap};
use crate::view::sweep::{crossing_words, Phase, SweepForm, SweepOrder, SweepRun, MOST_POINTS, MOST_REPS};

#[derive(Properties, PartialEq)]
pub struct SweepPanelProps {
    pub order: SweepOrder,
    /// The scenario as it stands: what a sweep started now sweeps.
    pub scenario: Rc<Scenario>,
    /// Loads a value into the field swept (`NODE.FIELD`, value).
    pub on_use_value: Callback<(NodeField, f64)>,
    /// A lesson's sweep is done: its ticket and the result.
    pub on_finished: Callback<(SweepTicket, SweepResult)>,
    /// A lesson's sweep ended without a result (it failed, was cancelled,
    /// or another sweep was started in its place): its ticket and why.
    pub on_abandoned: Callback<(SweepTicket, String)>,
    pub on_close: Callback<()>,
}

/// What changes the sweep on show.
enum Action {
    Start(Box<SweepRun>),
    Report(Report, f64),
    Cancel(f64),
}

#[derive(Default, PartialEq)]
struct Shown(Option<SweepRun>);

impl Reducible for Shown {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut run = self.0.clone();
        match action {
            Action::Start(new) => run = Some(*new),
            Action::Report(report, now) => {
                if let Some(r) = &mut run {
                    r.take(report, now);
                }
            }
            Action::Cancel(now) => {
                if let Some(r) = &mut run {
                    r.cancel(now);
                }
            }
        }
        Rc::new(Shown(run))
    }
}

/// A search for the setting on show.
#[derive(Default, PartialEq)]
struct Searched(Option<TuneRun>);

enum Search {
    Start,
    Report(sluice_engine::tune::TuneReport),
    Cancel,
}

impl Reducible for Searched {
    type Action = Search;
    fn reduce(self: Rc<Self>, action: Search) -> Rc<Self> {
        let mut run = self.0.clone();
        match action {
            Search::Start => run = Some(TuneRun::new()),
            Search::Report(report) => {
                if let Some(r) = &mut run {
                    r.take(report);
                }
            }
            Search::Cancel => {
                if let Some(r) = &mut run {
                    r.cancel();
                }
            }
        }
        Rc::new(Searched(run))
    }
}


#[function_component(SweepPanel)]
pub fn sweep_panel(props: &SweepPanelProps) -> Html {
    let form = use_state(|| props.order.form.clone());
    let error = use_state(|| None::<String>);
    let shown = use_reducer(Shown::default);
    let worker = use_mut_ref(|| None::<SweepWorker>);
    let searched = use_reducer(Searched::default);
    let searcher = use_mut_ref(|| None::<TuneWorker>);
    let goal = use_state(|| Goal::Minimize);
    let at_least = use_state(|| false);
    let canvas = use_node_ref();
    let section = use_node_ref();
    let x_map = use_mut_ref(|| None as XMap);
    let name = props.order.name.clone();
    // The chart's width on the page: a new width (a phone turned, a window
    // resized) draws it again at its new size.
    let chart_width = use_state(|| 0);
    {
        let (chart_width, canvas) = (chart_width.clone(), canvas.clone());
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|window| {
                EventListener::new(&window, "resize", move |_| {
                    if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                        chart_width.set(element.client_width());
                    }
                })
            });
            move || drop(listener)
        });
    }

    // Starts `request` in a fresh worker (ending any sweep before it).
    let start = {
        let (shown, worker, error) = (shown.clone(), worker.clone(), error.clone());
        Rc::new(move |name: NodeField, request: Request, lesson_step: Option<SweepTicket>| {
            *worker.borrow_mut() = None;
            let run = SweepRun::new(name, &request, now_ms(), lesson_step);
            shown.dispatch(Action::Start(Box::new(run)));
            let reports = shown.dispatcher();
            match SweepWorker::start(&request, move |report| reports.dispatch(Action::Report(report, now_ms()))) {
                Ok(w) => {
                    *worker.borrow_mut() = Some(w);
                    error.set(None);
                }
                Err(why) => shown.dispatch(Action::Report(Report::Failed { why }, now_ms())),
            }
        })
    };

    // A new order: its form, and a lesson's sweep starts at once. The panel
    // comes into view (on a phone it opens far below the button that asked
    // for it); a "Sweep this" moves the focus to its first field, while a
    // lesson's sweep leaves it on the lesson's step.
    {
        let (form, error, start, order, section) = (form.clone(), error.clone(), start.clone(), props.order.clone(), section.clone());
        use_effect_with(props.order.serial, move |_| {
            form.set(order.form.clone());
            error.set(None);
            let from = section.cast::<web_sys::Element>().and_then(|s| s.query_selector("#sweep-from").ok().flatten());
            if let Some((step, request)) = order.lesson {
                start(order.name.clone(), request, Some(step));
                if let Some(section) = section.cast::<web_sys::Element>() {
                    let options = web_sys::ScrollIntoViewOptions::new();
                    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    section.scroll_into_view_with_scroll_into_view_options(&options);
                }
            } else if let Some(from) = from.and_then(|f| f.dyn_into::<web_sys::HtmlElement>().ok()) {
                let _ = from.focus();
            }
        });
    }

    let run = shown.0.clone();
    let phase = run.as_ref().map(|r| r.phase.clone());
    // The worker goes as soon as the sweep ends; a lesson's sweep, done,
    // goes to its step to be judged.
    {
        let (worker, on_finished, on_abandoned, run) = (worker.clone(), props.on_finished.clone(), props.on_abandoned.clone(), run.clone());
        use_effect_with((phase.clone(), run.as_ref().map(|r| r.started_ms)), move |(phase, _)| {
            // (Before the first sweep there is no phase, and a lesson's
            // sweep may have just started its worker.)
            if phase.as_ref().is_some_and(|p| *p != Phase::Running) {
                *worker.borrow_mut() = None;
            }
            if let (Some(phase), Some((run, step))) = (phase, run.as_ref().and_then(|r| Some((r, r.lesson_step?)))) {
                match phase {
                    Phase::Running => {}
                    Phase::Done => on_finished.emit((step, run.result())),
                    Phase::Cancelled => on_abandoned.emit((step, "the sweep was cancelled".into())),
                    Phase::Failed(why) => on_abandoned.emit((step, format!("the sweep failed ({})", why.trim_end_matches('.')))),
                }
            }
        });
    }

    let metric = form.metric.clone();
    let current = sluice_engine::sweep::field_value(&props.scenario, &name).map(|(v, _)| v);
    let name_words = field_words(&props.scenario, &name);
    let target = form.target.trim().parse::<f64>().ok().filter(|t| t.is_finite());
    let tried: Vec<Tried> = searched.0.as_ref().map(|r| r.tried.clone()).unwrap_or_default();
    let also = form.also.clone().filter(|m| *m != metric);
    let look = Look { x_words: name_words.clone(), y_words: metric.words(), target, log_y: form.log_y, tried, also: also.clone().map(|m| (m.clone(), m.words())) };
    // The chart, drawn again when a point arrives or what it shows changes.
    {
        let (canvas, x_map, run, metric) = (canvas.clone(), x_map.clone(), run.clone(), metric.clone());
        let drawn = (run.as_ref().map(|r| (r.started_ms, r.points.len())), metric.clone(), current.map(f64::to_bits), *chart_width, look.clone());
        use_effect_with(drawn, move |(_, _, _, _, look)| {
            if let (Some(element), Some(run)) = (canvas.cast::<HtmlCanvasElement>(), &run) {
                match draw(element, run, &metric, current, look) {
                    Ok(map) => *x_map.borrow_mut() = map,
                    Err(e) => web_sys::console::warn_1(&format!("sweep chart: {e}").into()),
                }
            }
        });
    }

    let field = |label: &'static str, key: &'static str, value: String, help: &'static str, set: fn(&mut SweepForm, String)| {
        let form = form.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            let mut next = (*form).clone();
            set(&mut next, e.target_unchecked_into::<HtmlInputElement>().value());
            form.set(next);
        });
        html! {
            <label class="sweep-field">
                <span>{ label }</span>
                <input type="text" inputmode="decimal" id={format!("sweep-{key}")} data-testid={format!("sweep-{key}")} value={value} {oninput} title={help} />
            </label>
        }
    };
    let across_field = {
        let form = form.clone();
        Callback::from(move |e: InputEvent| {
            let mut next = (*form).clone();
            next.across.field = e.target_unchecked_into::<HtmlInputElement>().value();
            form.set(next);
        })
    };
    let on_metric = {
        let (form, scenario) = (form.clone(), props.scenario.clone());
        Callback::from(move |e: Event| {
            let mut next = (*form).clone();
            // The menu's entry the select reports.
            let chosen = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(metric) = metrics(&scenario).into_iter().find(|m| m.to_string() == chosen) {
                next.metric = metric;
                form.set(next);
            }
        })
    };
    let on_also = {
        let (form, scenario) = (form.clone(), props.scenario.clone());
        Callback::from(move |e: Event| {
            let mut next = (*form).clone();
            let chosen = e.target_unchecked_into::<HtmlSelectElement>().value();
            next.also = metrics(&scenario).into_iter().find(|m| m.to_string() == chosen);
            form.set(next);
        })
    };
    let on_start = {
        let (form, error, start, scenario, name) = (form.clone(), error.clone(), start.clone(), props.scenario.clone(), name.clone());
        // A lesson's sweep still running gives way, and its step hears why.
        let replaced = run.as_ref().filter(|r| r.phase == Phase::Running).and_then(|r| r.lesson_step);
        let on_abandoned = props.on_abandoned.clone();
        Callback::from(move |_: MouseEvent| match form.request(&name, &scenario) {
            Ok(request) => {
                if let Some(step) = replaced {
                    on_abandoned.emit((step, "another sweep was started in the Sweep panel".into()));
                }
                start(name.clone(), request, None)
            }
            Err(why) => error.set(Some(why)),
        })
    };
    let on_cancel = {
        let (shown, worker) = (shown.clone(), worker.clone());
        Callback::from(move |_: MouseEvent| {
            *worker.borrow_mut() = None;
            shown.dispatch(Action::Cancel(now_ms()));
        })
    };
    let on_chart_click = {
        let (x_map, run, on_use, name) = (x_map.clone(), run.clone(), props.on_use_value.clone(), name.clone());
        Callback::from(move |e: MouseEvent| {
            let (Some(run), Some((left, right, x0, x1))) = (&run, *x_map.borrow()) else { return };
            // The chart is drawn in CSS pixels, as the click is measured.
            let px = f64::from(e.offset_x());
            if right <= left {
                return;
            }
            let x = x0 + (px - left) / (right - left) * (x1 - x0);
            if let Some(v) = run.nearest(x) {
                on_use.emit((name.clone(), v));
            }
        })
    };
    let on_csv = {
        let run = run.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(run) = &run {
                keep::download_as(&format!("sweep-{}.csv", run.name), &run.result().to_csv(&[]), "text/csv");
            }
        })
    };
    let on_png = {
        let (canvas, run) = (canvas.clone(), run.clone());
        Callback::from(move |_: MouseEvent| {
            if let (Some(element), Some(run)) = (canvas.cast::<HtmlCanvasElement>(), &run) {
                if let Ok(url) = element.to_data_url() {
                    keep::download_url(&format!("sweep-{}.png", run.name), &url);
                }
            }
        })
    };

    let on_log = {
        let form = form.clone();
        Callback::from(move |_: MouseEvent| {
            let mut next = (*form).clone();
            next.log_y = !next.log_y;
            form.set(next);
        })
    };
    let searching = searched.0.as_ref().is_some_and(|r| r.phase == TunePhase::Running);
    // The worker goes as soon as the search ends.
    {
        let searcher = searcher.clone();
        use_effect_with(searching, move |searching| {
            if !*searching {
                *searcher.borrow_mut() = None;
            }
        });
    }
    let on_find = {
        let (form, error, searched, searcher, scenario, name) = (form.clone(), error.clone(), searched.clone(), searcher.clone(), props.scenario.clone(), name.clone());
        let (goal, at_least) = (*goal, *at_least);
        Callback::from(move |_: MouseEvent| match form.tune_request(&name, &scenario, goal, at_least) {
            Ok(request) => {
                *searcher.borrow_mut() = None;
                searched.dispatch(Search::Start);
                let reports = searched.dispatcher();
                match TuneWorker::start(&request, move |report| reports.dispatch(Search::Report(report))) {
                    Ok(w) => {
                        *searcher.borrow_mut() = Some(w);
                        error.set(None);
                    }
                    Err(why) => searched.dispatch(Search::Report(sluice_engine::tune::TuneReport::Failed { why })),
                }
            }
            Err(why) => error.set(Some(why)),
        })
    };
    let on_stop_search = {
        let (searched, searcher) = (searched.clone(), searcher.clone());
        Callback::from(move |_: MouseEvent| {
            *searcher.borrow_mut() = None;
            searched.dispatch(Search::Cancel);
        })
    };
    let on_goal = {
        let goal = goal.clone();
        Callback::from(move |e: Event| goal.set(if e.target_unchecked_into::<HtmlSelectElement>().value() == "maximize" { Goal::Maximize } else { Goal::Minimize }))
    };
    let on_side = {
        let at_least = at_least.clone();
        Callback::from(move |e: Event| at_least.set(e.target_unchecked_into::<HtmlSelectElement>().value() == ">="))
    };
    let search = searched.0.as_ref().map(|r| {
        let (status, answer) = match &r.phase {
            TunePhase::Running => ("Searching".to_string(), None),
            TunePhase::Done(result) => {
                let wanted = format!("{} {} {}", metric.words(), if *at_least { "at least" } else { "at most" }, form.target.trim());
                ("Found".to_string(), Some(answer_words(result, &name_words, &metric.words(), &wanted)))
            }
            TunePhase::Cancelled => ("Cancelled".to_string(), None),
            TunePhase::Failed(why) => (format!("Stopped: {why}"), None),
        };
        let use_best = r.best().map(|v| {
            let on_use = props.on_use_value.reform({
                let name = name.clone();
                move |_: MouseEvent| (name.clone(), v)
            });
            html! { <button class="small primary" data-testid="tune-use" onclick={on_use}>{ format!("Use {}", as_written(v)) }</button> }
        });
        html! {
            <div class="tune-result" data-testid="tune-result">
                <p class="hint"><strong data-testid="tune-status" role="status">{ status }</strong>{ ": " }{ r.progress() }</p>
                if let Some(answer) = answer {
                    <p data-testid="tune-answer">{ answer }{ " " }{ for use_best }</p>
                }
            </div>
        }
    });
    let running = matches!(phase, Some(Phase::Running));
    let options = metrics(&props.scenario).into_iter().map(|m| {
        let text = m.to_string();
        html! { <option value={text.clone()} title={text.clone()} selected={m == metric}>{ m.words() }</option> }
    });
    let also_options = metrics(&props.scenario).into_iter().map(|m| {
        let text = m.to_string();
        html! { <option value={text.clone()} title={text.clone()} selected={Some(&m) == also.as_ref()}>{ m.words() }</option> }
    });
    let crossed = match (target, &run) {
        (Some(t), Some(r)) if !r.points.is_empty() => {
            let (measured, _) = r.series(&metric);
            Some(html! { <p class="hint" data-testid="sweep-crossing">{ crossing_words(&measured, t, three_figures, four_figures) }</p> })
        }
        _ => None,
    };
    let progress = run.as_ref().map(|r| {
        let now = now_ms();
        let status = match &r.phase {
            Phase::Running => "Running".to_string(),
            Phase::Done => "Done".to_string(),
            Phase::Cancelled => "Cancelled".to_string(),
            Phase::Failed(why) => format!("Stopped: {why}"),
        };
        html! {
            <div class="sweep-progress" data-testid="sweep-progress">
                <progress max={r.total_reps().to_string()} value={r.done_reps.to_string()} aria-label="Sweep progress"></progress>
                // Only the phase is announced: the counts change with every
                // replication, and a screen reader would read each.
                <p class="hint"><strong data-testid="sweep-status" role="status">{ status }</strong>{ ": " }{ r.progress_text(now) }</p>
            </div>
        }
    });
    let across_words = run.as_ref().and_then(|r| r.across.as_ref()).map_or_else(String::new, |(f, _)| field_words(&props.scenario, f));
    let table = run.as_ref().filter(|r| !r.points.is_empty()).map(|r| {
        let rows = r.points.iter().map(|p| {
            let x = p.values.get(&r.name).copied().unwrap_or(f64::NAN);
            let up = r.across.as_ref().map(|(f, _)| html! { <td>{ p.values.get(f).map_or_else(String::new, |v| as_written(*v)) }</td> });
            let e = p.metrics.get(&metric);
            let measured = match e.and_then(|e| e.mean) {
                Some(mean) => format!("{} ± {}", four_figures(mean), e.and_then(|e| e.ci95).map_or("—".into(), four_figures)),
                None => "no value".into(),
            };
            let theory = p.predicted(&metric).map_or(String::new(), four_figures);
            let second = also.as_ref().map(|m| {
                let e = p.metrics.get(m);
                let shown = match e.and_then(|e| e.mean) {
                    Some(mean) => format!("{} ± {}", four_figures(mean), e.and_then(|e| e.ci95).map_or("—".into(), four_figures)),
                    None => "no value".into(),
                };
                html! { <td>{ shown }</td> }
            });
            let on_use = props.on_use_value.reform({
                let name = r.name.clone();
                move |_: MouseEvent| (name.clone(), x)
            });
            let now = current == Some(x);
            html! {
                <tr class={classes!(now.then_some("now"))}>
                    <td>{ as_written(x) }</td>{ for up }<td>{ measured }</td><td>{ theory }</td>{ for second }
                    <td><button class="small" data-testid={format!("sweep-use-{}", as_written(x))} onclick={on_use}
                        aria-label={format!("{} {} = {}", if now { "In use:" } else { "Use" }, r.name, as_written(x))}>{ if now { "In use" } else { "Use" } }</button></td>
                </tr>
            }
        });
        html! {
            <div class="sweep-table-wrap"><table class="sweep-table" data-testid="sweep-table">
                <thead><tr>
                    <th scope="col" title={r.name.to_string()}>{ name_words.clone() }</th>
                    if let Some((f, _)) = &r.across {
                        <th scope="col" title={f.to_string()}>{ across_words.clone() }</th>
                    }
                    <th scope="col" title={metric.to_string()}>{ metric.words() }{ " (95%)" }</th>
                    <th scope="col">{"theory"}</th>
                    if let Some(m) = &also {
                        <th scope="col" title={m.to_string()}>{ m.words() }{ " (95%)" }</th>
                    }
                    <th></th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table></div>
        }
    });
    let has_points = run.as_ref().is_some_and(|r| !r.points.is_empty());
    // A sweep of two fields: a map in place of the chart.
    let map = run.as_ref().and_then(|r| r.grid(&metric)).map(Rc::new);
    let on_close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <section ref={section} id="sweep-panel" class="panel sweep-panel" aria-label="Sweep" data-testid="sweep-panel">
            <div class="panel-head">
                <h2>{ "Sweep " }<span class="muted" title={name.to_string()}>{ name_words.clone() }</span></h2>
                <button class="icon" onclick={on_close} aria-label="Close the sweep">{"×"}</button>
            </div>
            <p class="hint">{ "Each value runs several times with its own seeds (the same at every value), each run measured after a warm-up of a tenth; the band is the 95% interval over the runs." }</p>
            <div class="sweep-form">
                { field("From", "from", form.from.clone(), "The first value", |f, v| f.from = v) }
                { field("To", "to", form.to.clone(), "The last value", |f, v| f.to = v) }
                { field("Points", "points", form.points.clone(), "How many values, evenly spread", |f, v| f.points = v) }
                { field("Replications", "reps", form.reps.clone(), "Runs per value", |f, v| f.reps = v) }
                { field("Duration (s)", "until", form.until_s.clone(), "Simulated seconds per run", |f, v| f.until_s = v) }
                <label class="sweep-field across">
                    <span>{ "Across" }</span>
                    <input type="text" id="sweep-across" data-testid="sweep-across" value={form.across.field.clone()} oninput={across_field}
                        placeholder="none (NODE.FIELD)" title="A second field to vary, such as clients.retries.max_attempts: every pair of values runs, and the result is a map" />
                </label>
                if !form.across.field.trim().is_empty() {
                    { field("Across from", "across-from", form.across.from.clone(), "The second field's first value", |f, v| f.across.from = v) }
                    { field("Across to", "across-to", form.across.to.clone(), "The second field's last value", |f, v| f.across.to = v) }
                    { field("Across points", "across-points", form.across.points.clone(), "How many values of the second field", |f, v| f.across.points = v) }
                }
                <label class="sweep-field metric">
                    <span>{ "Metric" }</span>
                    <select data-testid="sweep-metric" onchange={on_metric} title={metric.to_string()}>{ for options }</select>
                </label>
                <label class="sweep-field metric">
                    <span>{ "And" }</span>
                    <select data-testid="sweep-also" onchange={on_also} title="A second metric, drawn on its own axis at the right: what the first one costs">
                        <option value="" selected={also.is_none()}>{ "— nothing else" }</option>
                        { for also_options }
                    </select>
                </label>
                { field("Target", "target", form.target.clone(), "A level to read the chart against, such as 0.01: drawn across it, and where the mean and its 95% band cross it said beneath", |f, v| f.target = v) }
                <button class="small sweep-log" data-testid="sweep-log" aria-pressed={form.log_y.to_string()} onclick={on_log}
                    title="The metric's axis on a logarithmic scale: a tail or a drop rate over several orders of magnitude">{ if form.log_y { "✓ Log scale" } else { "Log scale" } }</button>
            </div>
            <div class="sweep-actions">
                <button class="primary small" data-testid="sweep-start" onclick={on_start} disabled={running}>{ "Start sweep" }</button>
                <button class="small" data-testid="sweep-cancel" onclick={on_cancel} disabled={!running}>{ "Cancel" }</button>
                <button class="small" data-testid="sweep-csv" onclick={on_csv} disabled={!has_points}>{ "Export CSV" }</button>
                <button class="small" data-testid="sweep-png" onclick={on_png} disabled={!has_points}>{ "Export PNG" }</button>
                <span class="muted sweep-limits">{ format!("up to {MOST_POINTS} points, {MOST_REPS} replications") }</span>
            </div>
            <div class="tune-form" role="group" aria-label="Find the setting">
                <span class="tune-words">{ "Find the" }</span>
                <select data-testid="tune-goal" aria-label="Smallest or largest" onchange={on_goal}>
                    <option value="minimize" selected={*goal == Goal::Minimize}>{ "smallest" }</option>
                    <option value="maximize" selected={*goal == Goal::Maximize}>{ "largest" }</option>
                </select>
                <span class="tune-words">{ "value whose metric keeps" }</span>
                <select data-testid="tune-side" aria-label="At most or at least the target" onchange={on_side}>
                    <option value="<=" selected={!*at_least}>{ "at most" }</option>
                    <option value=">=" selected={*at_least}>{ "at least" }</option>
                </select>
                <span class="tune-words">{ "the target" }</span>
                <button class="small primary" data-testid="tune-start" onclick={on_find} disabled={searching}
                    title="Bisection over From to To, each value run until its 95% interval is on one side of the target (up to Replications runs)">{ "Find the setting" }</button>
                <button class="small" data-testid="tune-cancel" onclick={on_stop_search} disabled={!searching}>{ "Cancel" }</button>
            </div>
            { for search }
            if let Some(why) = &*error {
                <p class="param-error" role="alert" data-testid="sweep-error">{ why }</p>
            }
            { for progress }
            if let Some(grid) = map.clone() {
                <PhaseMap {grid} metric={metric.clone()} across={name_words.clone()} up={across_words.clone()} />
            } else if run.is_some() {
                <canvas ref={canvas} class="sweep-chart" width="720" height="300" data-testid="sweep-chart" onclick={on_chart_click}
                    role="img" aria-label={format!("{}{} against {name_words}; the table below lists every point", metric.words(), also.as_ref().map(|m| format!(" and {} (right axis)", m.words())).unwrap_or_default())}></canvas>
                <div class="legend sweep-legend">
                    <span class="legend-item"><span class="line-swatch" style="border-top: 3px solid #1c7ed6"></span>{ "measured, with its 95% band" }</span>
                    <span class="legend-item"><span class="line-swatch" style="border-top: 3px dashed #e8590c"></span>{ "theory" }</span>
                    <span class="legend-item"><span class="line-swatch" style="border-top: 3px dotted #495057"></span>{ "value now" }</span>
                    if let Some(m) = &also {
                        <span class="legend-item" data-testid="sweep-also-legend"><span class="line-swatch" style="border-top: 3px solid #7048e8"></span>{ format!("{} (right axis)", m.words()) }</span>
                    }
                    if target.is_some() {
                        <span class="legend-item"><span class="line-swatch" style="border-top: 3px dashed #c92a2a"></span>{ "target" }</span>
                    }
                </div>
                { for crossed }
                <p class="hint chart-hint">{ "Click a point, or Use in the table, to load its value into the scenario (Undo takes it back)." }</p>
            }
            { for table }
        </section>
    }
}
