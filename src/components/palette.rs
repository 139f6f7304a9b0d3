//! The palette: every block of the engine, to drag onto the canvas (mouse,
//! pen or touch) or to add with Enter. Dropping reports the kind and the
//! pointer's position on the screen; the page places the block there.

use gloo_events::EventListener;
use sluice_engine::scenario::Kind;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::view::words::{describe_kind, kind_label};

#[derive(Properties, PartialEq)]
pub struct PaletteProps {
    /// A kind dropped at a point of the screen (client coordinates).
    pub on_drop: Callback<(Kind, f64, f64)>,
    /// A kind chosen with the keyboard or a click without a drag.
    pub on_add: Callback<Kind>,
    /// Where a kind dropped at a point of the screen would land, in words,
    /// when it is somewhere of note (on an edge): the ghost says it.
    pub lands: Callback<(Kind, f64, f64), Option<String>>,
}

/// A drag from the palette: the kind and where the pointer is now.
#[derive(Clone, PartialEq)]
struct Drag {
    kind: Kind,
    start: (f64, f64),
    at: (f64, f64),
    /// Where it would land, when of note.
    lands: Option<String>,
}

impl Drag {
    fn moved(&self) -> bool {
        (self.at.0 - self.start.0).hypot(self.at.1 - self.start.1) > 4.0
    }
}

#[function_component(Palette)]
pub fn palette(props: &PaletteProps) -> Html {
    // The drag under way, shared with the page-wide listeners below, and a
    // copy in state to draw the ghost that follows the pointer.
    let current = use_mut_ref(|| None::<Drag>);
    let ghost = use_state(|| None::<Drag>);
    // The listeners are installed once; they call the latest callbacks.
    let callbacks = use_mut_ref(|| (props.on_drop.clone(), props.on_add.clone()));
    *callbacks.borrow_mut() = (props.on_drop.clone(), props.on_add.clone());
    let lands = use_mut_ref(|| props.lands.clone());
    *lands.borrow_mut() = props.lands.clone();
    {
        let (current, ghost, lands) = (current.clone(), ghost.clone(), lands.clone());
        use_effect_with((), move |_| {
            let document = gloo_utils::document();
            let moving = {
                let (current, ghost) = (current.clone(), ghost.clone());
                EventListener::new(&document, "pointermove", move |event| {
                    let Some(e) = event.dyn_ref::<PointerEvent>() else { return };
                    let mut drag = current.borrow_mut();
                    if let Some(d) = drag.as_mut() {
                        d.at = (e.client_x() as f64, e.client_y() as f64);
                        d.lands = lands.borrow().emit((d.kind, d.at.0, d.at.1));
                        ghost.set(Some(d.clone()).filter(Drag::moved));
                    }
                })
            };
            let ending = EventListener::new(&document, "pointerup", move |event| {
                let Some(e) = event.dyn_ref::<PointerEvent>() else { return };
                let Some(d) = current.borrow_mut().take() else { return };
                ghost.set(None);
                let (on_drop, on_add) = callbacks.borrow().clone();
                if d.moved() {
                    on_drop.emit((d.kind, e.client_x() as f64, e.client_y() as f64));
                } else {
                    on_add.emit(d.kind);
                }
            });
            move || drop((moving, ending))
        });
    }
    let items = Kind::ALL.into_iter().map(|kind| {
        let onpointerdown = {
            let current = current.clone();
            Callback::from(move |e: PointerEvent| {
                if e.button() != 0 {
                    return;
                }
                e.prevent_default();
                let at = (e.client_x() as f64, e.client_y() as f64);
                *current.borrow_mut() = Some(Drag { kind, start: at, at, lands: None });
            })
        };
        let onkeydown = {
            let on_add = props.on_add.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    on_add.emit(kind);
                }
            })
        };
        html! {
            <div class={classes!("palette-item", kind.as_str())} data-kind={kind.as_str()} role="button" tabindex="0"
                aria-label={format!("Add a {}: {}", kind_label(kind).to_lowercase(), describe_kind(kind))}
                title={describe_kind(kind)}
                {onpointerdown} {onkeydown}>
                <span class="swatch" aria-hidden="true"></span>
                <span class="name">{ kind_label(kind) }</span>
            </div>
        }
    });
    let ghost = (*ghost).clone().map(|d| {
        html! {
            <div class={classes!("palette-ghost", d.lands.is_some().then_some("on-edge"))} data-testid="palette-ghost" aria-hidden="true"
                 style={format!("left: {}px; top: {}px", d.at.0, d.at.1)}>
                { kind_label(d.kind) }
                if let Some(lands) = &d.lands {
                    <span class="lands">{ format!(" · {lands}") }</span>
                }
            </div>
        }
    });
    html! {
        <section class="panel palette" aria-label="Blocks">
            <h2>{"Blocks"}</h2>
            <p class="hint">
                <span class="mouse-words">{"Drag onto the canvas, or press Enter."}</span>
                <span class="touch-words">{"Tap a block to add it to the canvas."}</span>
            </p>
            <div class="palette-items">{ for items }</div>
            { for ghost }
        </section>
    }
}
