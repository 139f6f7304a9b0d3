//! The lesson picker: every lesson as a card, the first thing a new visitor
//! sees. Choosing one opens it; "Just the playground" closes the picker and
//! keeps what is on the canvas. Escape closes it too.
//!
//! Guarantees: it is a modal dialog. The focus starts on the first lesson
//! and stays inside (Tab from the last control goes to the first, Shift+Tab
//! from the first to the last); when the picker closes, the focus goes back
//! to where it was when it opened (the Lessons button, say). The page
//! behind is inert meanwhile (see the app). (`browser::dialog`.)

use std::rc::Rc;

use sluice_engine::lesson::LessonText;
use yew::prelude::*;

use crate::browser::dialog::use_modal;

#[derive(Properties, PartialEq)]
pub struct LessonPickerProps {
    pub lessons: Rc<Vec<LessonText>>,
    /// Reports the index of the lesson chosen.
    pub on_pick: Callback<usize>,
    pub on_close: Callback<()>,
}

#[function_component(LessonPicker)]
pub fn lesson_picker(props: &LessonPickerProps) -> Html {
    let first = use_node_ref();
    let dialog = use_node_ref();
    use_modal(dialog.clone(), first.clone(), props.on_close.clone());
    let cards = props.lessons.iter().enumerate().map(|(k, l)| {
        let on_pick = props.on_pick.clone();
        html! {
            <li>
                <button class="lesson-card" data-testid={format!("lesson-{}", l.number)} ref={if k == 0 { first.clone() } else { NodeRef::default() }}
                    onclick={Callback::from(move |_: MouseEvent| on_pick.emit(k))}>
                    <span class="lesson-number">{ l.number }</span>
                    <span class="lesson-title">{ &l.title }</span>
                    <span class="lesson-source">{ &l.source }</span>
                    <span class="lesson-summary">{ &l.summary }</span>
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
            </section>
        </div>
    }
}
