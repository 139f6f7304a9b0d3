//! Playing: while the page plays, every painted frame advances the
//! playground by the real time since the last frame (the engine's pacing
//! decides how far that goes), notes what the runs did, and says which
//! parts of the page to draw again.
//!
//! Guarantees: the clock and the dots are set every frame (their components
//! draw alone); the rest of the page only when a panel is due, a verdict
//! came, or the watchdog stopped a run, which pauses the page. No frame
//! advances a run once the page has drawn itself paused or at another
//! speed: the loop reads what the last render drew, since the scheduler
//! may let a frame in between a render and the effect that stops the loop.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use sluice_engine::playground::{Speed, StepBegun};
use yew::prelude::*;

use crate::browser::clock::now_ms;
use crate::browser::frames::FrameLoop;
use crate::browser::live::Live;
use crate::view::motion::Motion;
use crate::view::observed::Session;
use crate::view::panels::{PanelCache, CLOCK_MS};

/// What the clock shows: simulated seconds, and events processed since the
/// start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockReading {
    pub time_s: f64,
    pub events: u64,
}

/// What the frame loop reads and sets.
pub struct Player {
    pub session: Rc<RefCell<Session>>,
    pub playing: UseStateHandle<bool>,
    pub speed: Speed,
    /// The runs cannot keep up with the speed.
    pub behind: UseStateHandle<bool>,
    pub panels: Rc<RefCell<PanelCache>>,
    pub clock: Rc<Live<ClockReading>>,
    pub motion: Rc<Live<Rc<Motion>>>,
    pub b_motion: Rc<Live<Rc<Motion>>>,
    pub redraw: UseForceUpdateHandle,
    /// Shows what a lesson step that began on its own asks for.
    pub begin: Callback<StepBegun>,
}

/// What a paused page shows of the clock and the dots: the instant shown,
/// with no dots when it is earlier than the live one (the time line was
/// dragged back), else the live run's.
pub fn show_paused(s: &Session, clock: &Live<ClockReading>, a: &Live<Rc<Motion>>, b: &Live<Rc<Motion>>) {
    let shown = s.play.shown();
    clock.set(ClockReading { time_s: shown.map_or(0.0, |sim| sim.now().as_secs_f64()), events: shown.map_or(0, |sim| sim.events()) });
    let moving = |motion: &Rc<Motion>| if s.play.scrubbed().is_some() { Rc::default() } else { motion.clone() };
    a.set(moving(&s.a.motion));
    if let Some(notes) = &s.b {
        b.set(moving(&notes.motion));
    }
}

/// Runs the frame loop while `player.playing` holds, at `player.speed`.
#[hook]
pub fn use_player(player: Player) {
    let deps = (*player.playing, player.speed);
    // What the page drew last: set at every render, read by every frame.
    let drawn = use_mut_ref(|| deps);
    *drawn.borrow_mut() = deps;
    use_effect_with(deps, move |&(playing, speed)| {
        let frames = playing.then(|| {
            let last = Cell::new(now_ms());
            let clock_read_at = Cell::new(f64::NEG_INFINITY);
            FrameLoop::start(move |_| {
                if *drawn.borrow() != (true, speed) {
                    return;
                }
                let now = now_ms();
                let elapsed_s = (now - last.replace(now)) / 1000.0;
                let mut s = player.session.borrow_mut();
                if s.play.run().is_none() {
                    // No run: no dots left over from the last one (the same
                    // empty motion renders nothing again).
                    player.motion.set(s.a.motion.clone());
                    return;
                }
                let advanced = s.play.advance(elapsed_s, speed, &|| now_ms() / 1000.0);
                s.observe();
                // The watchdog stopped a run: the page stops with it, and its
                // panel says why (the scenario stays editable).
                s.paused_by_watchdog |= advanced.stopped;
                let time_s = s.play.run().map_or(0.0, |sim| sim.now().as_secs_f64());
                let reading = (now - clock_read_at.get() >= CLOCK_MS).then(|| ClockReading { time_s, events: s.events() });
                let (motion, b_motion) = (s.a.motion.clone(), s.b.as_ref().map(|b| b.motion.clone()));
                // A step that only watches began at the verdict before it.
                let begun = advanced.began.and_then(|_| s.play.begun_alone(speed));
                drop(s);
                if *player.behind == advanced.kept_up {
                    player.behind.set(!advanced.kept_up);
                }
                if let Some(reading) = reading {
                    clock_read_at.set(now);
                    player.clock.set(reading);
                }
                player.motion.set(motion);
                if let Some(b_motion) = b_motion {
                    player.b_motion.set(b_motion);
                }
                if advanced.stopped {
                    player.playing.set(false);
                }
                if let Some(begun) = begun {
                    player.begin.emit(begun);
                }
                if advanced.judged || advanced.stopped || player.panels.borrow().any_due(now_ms()) {
                    player.redraw.force_update();
                }
            })
        });
        move || drop(frames)
    });
}
