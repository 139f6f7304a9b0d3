//! The lesson picker: every lesson as a card, the first thing a new visitor
//! sees. Choosing one opens it; "Just the playground" closes the picker and
//! keeps what is on the canvas. Escape closes it too.

use std::rc::Rc;

use gloo_events::EventListener;
use sluice_engine::lesson::LessonText;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::prelude::*;

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
    {
        let on_close = props.on_close.clone();
        let first = first.clone();
        use_effect_with((), move |_| {
            // The keyboard starts on the first lesson.
            if let Some(button) = first.cast::<web_sys::HtmlElement>() {
                let _ = button.focus();
            }
            let listener = EventListener::new(&gloo_utils::document(), "keydown", move |event| {
                if event.dyn_ref::<KeyboardEvent>().is_some_and(|e| e.key() == "Escape") {
                    on_close.emit(());
                }
            });
            move || drop(listener)
        });
    }
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
            <section class="picker" role="dialog" aria-modal="true" aria-labelledby="picker-title" data-testid="lesson-picker">
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
