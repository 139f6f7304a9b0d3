//! The page: owns the running simulation and drives it on a timer; every
//! other component gets plain data as props and reports input as callbacks.

use std::cell::Cell;
use std::rc::Rc;

use gloo_timers::callback::Interval;
use sluice_engine::{BlockSpec, Scenario, Simulation};
use yew::prelude::*;

use crate::chart::DepthChart;
use crate::controls::Controls;
use crate::counters::Counters;
use crate::graph::Graph;
use crate::inspector::Inspector;
use crate::snapshot::{DepthSeries, Snapshot};
use crate::transitions_log::TransitionsLog;

/// Milliseconds between frames.
const FRAME_MS: u32 = 33;
/// The most events one frame may process, so the page stays responsive
/// when the simulation cannot keep up with the chosen speed.
const EVENTS_PER_FRAME: u64 = 200_000;
/// A frame never simulates more than this much real time (a tab that was in
/// the background does not jump ahead).
const MAX_FRAME_SECONDS: f64 = 0.25;

fn default_scenario() -> Scenario {
    Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).expect("the built-in scenario is valid")
}

fn new_simulation(scenario: Scenario) -> Simulation {
    let seed = scenario.seed.unwrap_or(1);
    Simulation::new(scenario, seed).expect("a validated scenario builds")
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// The node charted when nothing is selected: the first queue, else node 0.
fn default_chart_node(sim: &Simulation) -> usize {
    sim.scenario().nodes.iter().position(|n| n.block.kind() == "queue").unwrap_or(0)
}

#[function_component(App)]
pub fn app() -> Html {
    let sim = use_mut_ref(|| new_simulation(default_scenario()));
    let playing = use_state(|| true);
    let speed = use_state(|| 1.0f64);
    let selected = use_state(|| Some(default_chart_node(&sim.borrow())));
    let behind = use_state(|| false);
    let redraw = use_force_update();

    {
        let sim = sim.clone();
        let redraw = redraw.clone();
        let behind = behind.clone();
        use_effect_with((*playing, *speed), move |&(playing, speed)| {
            let interval = playing.then(|| {
                let last = Rc::new(Cell::new(now_ms()));
                Interval::new(FRAME_MS, move || {
                    let now = now_ms();
                    let real_s = ((now - last.get()) / 1000.0).clamp(0.0, MAX_FRAME_SECONDS);
                    last.set(now);
                    let mut sim = sim.borrow_mut();
                    let target = sim.now() + sluice_engine::SimDuration::from_secs_f64(real_s * speed);
                    let kept_up = sim.run_until_bounded(target, EVENTS_PER_FRAME);
                    drop(sim);
                    if *behind == kept_up {
                        behind.set(!kept_up);
                    }
                    redraw.force_update();
                })
            });
            move || drop(interval)
        });
    }

    let snapshot = Rc::new(Snapshot::of(&sim.borrow()));
    let chart_node = selected.unwrap_or_else(|| default_chart_node(&sim.borrow()));
    let series = Rc::new(DepthSeries::of(&sim.borrow(), chart_node));

    let on_play = {
        let playing = playing.clone();
        Callback::from(move |_| playing.set(!*playing))
    };
    let on_speed = {
        let speed = speed.clone();
        Callback::from(move |s: f64| speed.set(s))
    };
    let on_reset = {
        let sim = sim.clone();
        let redraw = redraw.clone();
        Callback::from(move |_| {
            let scenario = sim.borrow().scenario().clone();
            *sim.borrow_mut() = new_simulation(scenario);
            redraw.force_update();
        })
    };
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |node: Option<usize>| selected.set(node))
    };
    let on_reconfigure: Callback<(String, BlockSpec), Result<(), String>> = {
        let sim = sim.clone();
        let redraw = redraw.clone();
        Callback::from(move |(id, block): (String, BlockSpec)| {
            let result = sim.borrow_mut().reconfigure(&id, block).map_err(|e| e.to_string());
            redraw.force_update();
            result
        })
    };

    let selected_spec = selected.and_then(|i| sim.borrow().scenario().nodes.get(i).cloned());
    let scenario_name = sim.borrow().scenario().name.clone();

    html! {
        <div class="app">
            <header class="topbar">
                <div class="brand">
                    <span class="logo" aria-hidden="true">{"≋"}</span>
                    <span class="title">{"Sluice"}</span>
                    <span class="subtitle">{ scenario_name }</span>
                </div>
                <Controls
                    playing={*playing}
                    speed={*speed}
                    time_s={snapshot.time_s}
                    behind={*behind}
                    {on_play}
                    {on_speed}
                    {on_reset}
                />
            </header>
            <main class="workspace">
                <section class="stage">
                    <Graph snapshot={snapshot.clone()} selected={*selected} on_select={on_select.clone()} />
                    <DepthChart series={series} />
                </section>
                <aside class="sidebar">
                    <Inspector spec={selected_spec} on_reconfigure={on_reconfigure} on_close={on_select.reform(|_| None)} />
                    <Counters snapshot={snapshot.clone()} />
                    <TransitionsLog snapshot={snapshot} />
                </aside>
            </main>
        </div>
    }
}

