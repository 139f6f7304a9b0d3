//! The lesson editor: a lesson written on the scenario of the canvas (or
//! an open lesson changed), its story and steps as text, a step's changes
//! and checks one to a line in the editor's shorthand (`lesson::lines`).
//! "Try it" opens it as the lesson; the link and the file share it.
//!
//! Guarantees: it is a modal dialog, as the picker is (`browser::dialog`).
//! What is typed is read on every change, and the dialog says at once
//! whether it holds together or where it does not (the step, the field,
//! the line), and a polite live region speaks it once typing pauses; "Try it", the link and the file
//! are offered only for a lesson that holds together.

use std::rc::Rc;

use sluice_engine::lesson::{Lesson, LessonDraft, StepDraft};
use sluice_engine::share::Link;
use sluice_engine::Scenario;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::browser::dialog::use_modal;
use crate::browser::keep;

/// How long typing pauses before the verdict is spoken.
const SPEAK_AFTER_MS: u32 = 1_000;

#[derive(Properties, PartialEq)]
pub struct LessonEditorProps {
    /// The draft to begin with, and the scenario it is written on.
    pub start: Rc<(LessonDraft, Scenario)>,
    /// The lesson, tried.
    pub on_try: Callback<Lesson>,
    /// Closed: the draft as it stands, kept for later.
    pub on_close: Callback<LessonDraft>,
}

/// A text field of the draft, or of one of its steps.
#[derive(Clone, Copy, PartialEq)]
enum Field {
    Title,
    Summary,
    Story,
    Watch,
    ALabel,
    AChanges,
    BLabel,
    BChanges,
    Try(usize),
    Expect(usize),
    Within(usize),
    Changes(usize),
    Checks(usize),
}

impl Field {
    fn of(self, d: &mut LessonDraft) -> Option<&mut String> {
        fn step(d: &mut LessonDraft, k: usize) -> Option<&mut StepDraft> {
            d.steps.get_mut(k)
        }
        Some(match self {
            Field::Title => &mut d.title,
            Field::Summary => &mut d.summary,
            Field::Story => &mut d.story,
            Field::Watch => &mut d.watch,
            Field::ALabel => &mut d.a_label,
            Field::AChanges => &mut d.a_changes,
            Field::BLabel => &mut d.b_label,
            Field::BChanges => &mut d.b_changes,
            Field::Try(k) => &mut step(d, k)?.try_this,
            Field::Expect(k) => &mut step(d, k)?.expect,
            Field::Within(k) => &mut step(d, k)?.within,
            Field::Changes(k) => &mut step(d, k)?.changes,
            Field::Checks(k) => &mut step(d, k)?.checks,
        })
    }
}

#[function_component(LessonEditor)]
pub fn lesson_editor(props: &LessonEditorProps) -> Html {
    let dialog = use_node_ref();
    let first = use_node_ref();
    let draft = use_state(|| props.start.0.clone());
    // Escape, as Close, keeps the draft as it stands.
    let now = use_mut_ref(|| props.start.0.clone());
    *now.borrow_mut() = (*draft).clone();
    let close = {
        let (on_close, now) = (props.on_close.clone(), now.clone());
        Callback::from(move |_: ()| on_close.emit(now.borrow().clone()))
    };
    use_modal(dialog.clone(), first.clone(), close.clone());
    let link = use_state(|| None::<String>);
    let scenario = &props.start.1;
    let lesson = draft.lesson(scenario);

    // Every field writes what is typed into the draft.
    let typed = |field: Field| {
        let (draft, link) = (draft.clone(), link.clone());
        Callback::from(move |e: InputEvent| {
            let target = e.target();
            let value = target
                .clone()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<HtmlTextAreaElement>(t).ok().map(|a| a.value()))
                .or_else(|| target.and_then(|t| wasm_bindgen::JsCast::dyn_into::<HtmlInputElement>(t).ok().map(|i| i.value())))
                .unwrap_or_default();
            let mut next = (*draft).clone();
            if let Some(slot) = field.of(&mut next) {
                *slot = value;
            }
            draft.set(next);
            link.set(None);
        })
    };
    let changed = |change: Rc<dyn Fn(&mut LessonDraft)>| {
        let (draft, link) = (draft.clone(), link.clone());
        Callback::from(move |_: MouseEvent| {
            let mut next = (*draft).clone();
            change(&mut next);
            draft.set(next);
            link.set(None);
        })
    };
    let line = |label: &str, testid: String, value: &str, field: Field, node: Option<NodeRef>| {
        html! {
            <label class="editor-line">{ label }
                <input type="text" data-testid={testid} value={value.to_string()} oninput={typed(field)} ref={node.unwrap_or_default()} />
            </label>
        }
    };
    let area = |label: &str, hint: &str, testid: String, value: &str, field: Field, rows: u32| {
        html! {
            <label class="editor-area">{ label }
                if !hint.is_empty() { <span class="hint">{ hint.to_string() }</span> }
                <textarea data-testid={testid} rows={rows.to_string()} spellcheck="false" value={value.to_string()} oninput={typed(field)} />
            </label>
        }
    };
    let steps = draft.steps.iter().enumerate().map(|(k, s)| {
        let n = k + 1;
        let remove = changed(Rc::new(move |d: &mut LessonDraft| d.remove_step(k)));
        let compare = changed(Rc::new(move |d: &mut LessonDraft| {
            if let Some(step) = d.steps.get_mut(k) {
                step.compare = !step.compare;
            }
        }));
        html! {
            <li class="editor-step" data-testid={format!("editor-step-{n}")}>
                <h4>{ format!("Step {n}") }</h4>
                { area("Try", "", format!("editor-step-{n}-try"), &s.try_this, Field::Try(k), 2) }
                { area("Expect", "", format!("editor-step-{n}-expect"), &s.expect, Field::Expect(k), 2) }
                { area("Changes it makes", "one a line: node.field = value", format!("editor-step-{n}-changes"), &s.changes, Field::Changes(k), 2) }
                { area("Checks", "one a line: node figure >= n <= n (b: for B, b/a for B over A)", format!("editor-step-{n}-checks"), &s.checks, Field::Checks(k), 3) }
                <div class="editor-row">
                    { line("Judged after (simulated s)", format!("editor-step-{n}-within"), &s.within, Field::Within(k), None) }
                    <label class="editor-check"><input type="checkbox" checked={s.compare} onclick={compare} data-testid={format!("editor-step-{n}-compare")} />{"Compares A and B"}</label>
                    <button class="small secondary-small" onclick={remove} data-testid={format!("editor-step-{n}-remove")} aria-label={format!("Remove step {n}")}>{"Remove step"}</button>
                </div>
            </li>
        }
    });
    let add = changed(Rc::new(|d: &mut LessonDraft| d.add_step()));
    let compares = draft.has_variants();
    let nodes: Vec<&str> = scenario.nodes.iter().map(|n| n.id.as_str()).collect();
    let (status, ok) = match &lesson {
        Ok(l) => (format!("Holds together: {} step(s), each can be carried out and judged.", l.text.steps.len()), true),
        Err(why) => (format!("Not yet: {why}"), false),
    };
    // What a screen reader hears: the verdict once typing has paused, not
    // one at every key.
    let spoken = use_state(String::new);
    {
        let spoken = spoken.clone();
        use_effect_with((status.clone(), (*draft).clone()), move |(status, _)| {
            let (status, spoken_now) = (status.clone(), spoken.clone());
            let timer = gloo_timers::callback::Timeout::new(SPEAK_AFTER_MS, move || spoken_now.set(status));
            move || drop(timer)
        });
    }
    let on_try = {
        let (on_try, lesson) = (props.on_try.clone(), lesson.clone().ok());
        Callback::from(move |_: MouseEvent| {
            if let Some(l) = lesson.clone() {
                on_try.emit(l);
            }
        })
    };
    let on_link = {
        let (link, lesson) = (link.clone(), lesson.clone().ok());
        Callback::from(move |_: MouseEvent| {
            if let Some(l) = &lesson {
                let text = format!("{}{}", keep::page_address(), Link::WrittenLesson(l.to_code()).fragment());
                keep::copy_to_clipboard(&text);
                link.set(Some(text));
            }
        })
    };
    let on_file = {
        let lesson = lesson.clone().ok();
        Callback::from(move |_: MouseEvent| {
            if let Some(l) = &lesson {
                keep::download(&format!("lesson-{}.json", l.text.number), &l.to_json_written());
            }
        })
    };
    let on_close = close.reform(|_: MouseEvent| ());
    let changing = !props.start.0.title.is_empty() && props.start.0.steps.iter().any(|s| !s.try_this.is_empty());
    html! {
        <div class="picker-backdrop">
            <section class="picker lesson-editor" ref={dialog} role="dialog" aria-modal="true" aria-labelledby="editor-title" data-testid="lesson-editor">
                <div class="picker-head">
                    <div>
                        <h2 id="editor-title">{ if changing { "Change a lesson" } else { "Write a lesson" } }</h2>
                        <p class="hint">{ format!("On the scenario \"{}\": its blocks are {}. A step's checks are judged the number of simulated seconds after it begins; a check names a figure such as throughput_per_s, mean_sojourn_s, depth, dropped or entered.STATE (a name mistyped is answered with every figure).", scenario.name, nodes.join(", ")) }</p>
                    </div>
                    <button class="secondary" data-testid="editor-close" onclick={on_close}>{"Close"}</button>
                </div>
                <div class="editor-body">
                    { line("Title", "editor-title".into(), &draft.title, Field::Title, Some(first)) }
                    { line("Summary", "editor-summary".into(), &draft.summary, Field::Summary, None) }
                    { area("The story", "what the system is and what problem it has", "editor-story".into(), &draft.story, Field::Story, 3) }
                    { area("Watch", "where to look once it runs", "editor-watch".into(), &draft.watch, Field::Watch, 2) }
                    <ol class="editor-steps">{ for steps }</ol>
                    <button class="secondary" onclick={add} data-testid="editor-add-step">{"+ Add a step"}</button>
                    if compares {
                        <div class="editor-variants">
                            { line("A is", "editor-a-label".into(), &draft.a_label, Field::ALabel, None) }
                            { area("A's changes", "from the scenario as the lesson opens", "editor-a-changes".into(), &draft.a_changes, Field::AChanges, 2) }
                            { line("B is", "editor-b-label".into(), &draft.b_label, Field::BLabel, None) }
                            { area("B's changes", "", "editor-b-changes".into(), &draft.b_changes, Field::BChanges, 2) }
                        </div>
                    }
                </div>
                <p class={classes!("editor-status", if ok { "ok" } else { "off" })} data-testid="editor-status">{ status }</p>
                <p class="visually-hidden" role="status" data-testid="editor-spoken">{ (*spoken).clone() }</p>
                <div class="editor-actions">
                    <button class="small" disabled={!ok} onclick={on_try} data-testid="editor-try">{"Try it"}</button>
                    <button class="secondary" disabled={!ok} onclick={on_link} data-testid="editor-link">{"Copy link"}</button>
                    <button class="secondary" disabled={!ok} onclick={on_file} data-testid="editor-file">{"Download the file"}</button>
                </div>
                if let Some(text) = &*link {
                    <label class="editor-line">{"Anyone who opens this link gets this lesson (copied to the clipboard):"}
                        <input type="text" readonly=true value={text.clone()} data-testid="editor-link-text" />
                    </label>
                }
            </section>
        </div>
    }
}
