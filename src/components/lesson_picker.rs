//! The lesson picker: every lesson as a card, the first thing a new visitor
//! sees. Choosing one opens it; "Just the playground" closes the picker and
//! keeps what is on the canvas. Escape closes it too.
//!
//! The lesson to start with comes first, marked "Start here"; the others
//! follow in their order. Each card says about how long its lesson takes
//! (`lesson_minutes`) and whether this browser completed it.
//!
//! Guarantees: it is a modal dialog. The focus starts on the first lesson
//! and stays inside (Tab from the last control goes to the first, Shift+Tab
//! from the first to the last); when the picker closes, the focus goes back
//! to where it was when it opened (the Lessons button, say). The page
//! behind is inert meanwhile (see the app). (`browser::dialog`.)

use std::collections::BTreeSet;
use std::rc::Rc;

use sluice_engine::lesson::LessonText;
use sluice_engine::playground::lesson_minutes;
use yew::prelude::*;

use crate::browser::dialog::use_modal;

#[derive(Properties, PartialEq)]
pub struct LessonPickerProps {
    pub lessons: Rc<Vec<LessonText>>,
    /// The numbers of the lessons this browser completed.
    pub completed: Rc<BTreeSet<u32>>,
    /// Reports the index of the lesson chosen.
    pub on_pick: Callback<usize>,
    pub on_close: Callback<()>,
    /// Opens the lesson editor on the canvas's scenario.
    pub on_write: Callback<()>,
}

#[function_component(LessonPicker)]
pub fn lesson_picker(props: &LessonPickerProps) -> Html {
    let first = use_node_ref();
    let dialog = use_node_ref();
    use_modal(dialog.clone(), first.clone(), props.on_close.clone());
    // The lesson to start with first, then the others in their order.
    let mut order: Vec<usize> = (0..props.lessons.len()).collect();
    order.sort_by_key(|&k| !props.lessons[k].start_here);
    let cards = order.into_iter().enumerate().map(|(place, k)| {
        let l = &props.lessons[k];
        let on_pick = props.on_pick.clone();
        let done = props.completed.contains(&l.number);
        html! {
            <li>
                <button class={classes!("lesson-card", l.start_here.then_some("start-here"), done.then_some("done"))} data-testid={format!("lesson-{}", l.number)}
                    ref={if place == 0 { first.clone() } else { NodeRef::default() }}
                    onclick={Callback::from(move |_: MouseEvent| on_pick.emit(k))}>
                    <span class="lesson-number">{ l.number }</span>
                    <span class="lesson-title">{ &l.title }</span>
                    <span class="lesson-source">{ &l.source }</span>
                    <span class="lesson-summary">{ &l.summary }</span>
                    <span class="lesson-meta">
                        if l.start_here {
                            <span class="badge start" data-testid="start-here">{"Start here"}</span>
                        }
                        <span class="minutes" data-testid={format!("lesson-{}-minutes", l.number)}>{ format!("about {} min", lesson_minutes(l)) }</span>
                        if done {
                            <span class="badge done" data-testid={format!("lesson-{}-done", l.number)}>{"✓ completed"}</span>
                        }
                    </span>
                </button>
            </li>
        }
    });
    let on_close = props.on_close.clone();
    html! {
        <div class="picker-backdrop">
            <section class="picker" ref={dialog} role="dialog" aria-modal="true" aria-labelledby="picker-title" data-testid="lesson-picker">
                <div class="picker-head">
                    <div>
                        <h2 id="picker-title">{"Learn flow control by watching it"}</h2>
                        <p class="hint">{"Each lesson is a running model of a real server's mechanism, with what to watch and what to try. Pick one; you can change anything on the canvas as it runs."}</p>
                    </div>
                    <button class="secondary" data-testid="picker-close" onclick={Callback::from(move |_: MouseEvent| on_close.emit(()))}>
                        {"Just the playground"}
                    </button>
                </div>
                <ol class="lesson-cards">{ for cards }</ol>
                <p class="picker-foot">
                    <button class="secondary" data-testid="write-lesson" onclick={props.on_write.reform(|_: MouseEvent| ())}>{"Write a lesson…"}</button>
                    <span class="hint">{" on the scenario on the canvas: its story, steps and checks, tried here and shared by link or file."}</span>
                </p>
            </section>
        </div>
    }
}
