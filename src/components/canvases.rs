//! The canvas, or with an A/B comparison open, A's and B's side by side
//! and the table that compares their figures. A is edited; B is watched,
//! and picking a block on it selects the same block of A.

use std::rc::Rc;

use sluice_engine::lesson::Compared;
use yew::prelude::*;

use crate::browser::live::Live;
use crate::components::ab_table::AbTable;
use crate::components::graph::Graph;
use crate::view::motion::Motion;
use crate::view::selection::Select;
use crate::view::snapshot::Snapshot;

/// Variant B as its canvas shows it.
#[derive(Clone, PartialEq)]
pub struct VariantView {
    /// What A and B are.
    pub labels: (String, String),
    pub snapshot: Rc<Snapshot>,
    pub motion: Rc<Live<Rc<Motion>>>,
    pub dropping: Rc<Vec<bool>>,
    /// The selection, as B's indices.
    pub selected: Vec<usize>,
    /// The selection, by id: what the table compares.
    pub compared: Vec<String>,
    /// What a lesson's comparing step holds B to A on (its step, and each
    /// figure's name, A's and B's value since it began).
    pub judged: Option<(usize, Vec<Compared>)>,
}

#[derive(Properties, PartialEq)]
pub struct CanvasesProps {
    pub snapshot: Rc<Snapshot>,
    pub motion: Rc<Live<Rc<Motion>>>,
    pub dropping: Rc<Vec<bool>>,
    pub selected: Vec<usize>,
    pub on_select: Callback<Select>,
    pub on_move: Callback<(Vec<usize>, f64, f64)>,
    pub on_connect: Callback<(usize, usize)>,
    /// The edge a block dragged from the palette would go on, if any.
    #[prop_or_default]
    pub drop_edge: Option<(String, String)>,
    /// Presentation mode: the blocks' words drawn for a room.
    #[prop_or_default]
    pub present: bool,
    /// With a comparison open.
    pub b: Option<VariantView>,
    /// A pick on B's canvas, in B's indices.
    pub on_select_b: Callback<Select>,
    pub on_close_compare: Callback<()>,
    /// Asks where A and B first part.
    #[prop_or_default]
    pub on_diverge: Callback<()>,
    /// A file dropped on A's canvas: an access log to replay.
    pub on_log: Callback<web_sys::File>,
}

type MotionContext = ContextProvider<Rc<Live<Rc<Motion>>>>;

#[function_component(Canvases)]
pub fn canvases(p: &CanvasesProps) -> Html {
    // B's canvas is watched, not edited.
    let noop_move = use_callback((), |_: (Vec<usize>, f64, f64), _| ());
    let noop_connect = use_callback((), |_: (usize, usize), _| ());
    // A file dragged over the canvas may be dropped; dropped, it is read
    // as an access log.
    let over = Callback::from(|e: DragEvent| {
        if e.data_transfer().is_some_and(|d| d.types().includes(&"Files".into(), 0)) {
            e.prevent_default();
        }
    });
    let dropped = {
        let on_log = p.on_log.clone();
        Callback::from(move |e: DragEvent| {
            if let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|files| files.get(0)) {
                e.prevent_default();
                on_log.emit(file);
            }
        })
    };
    let a = html! {
        <div class="log-drop" ondragover={over} ondrop={dropped}>
        <MotionContext context={p.motion.clone()}>
            <Graph snapshot={p.snapshot.clone()} dropping={p.dropping.clone()} selected={p.selected.clone()} on_select={p.on_select.clone()}
                drop_edge={p.drop_edge.clone()} present={p.present}
                on_move={p.on_move.clone()} on_connect={p.on_connect.clone()} />
        </MotionContext>
        </div>
    };
    let Some(b) = &p.b else { return a };
    let (label_a, label_b) = b.labels.clone();
    html! {
        <>
            <div class="ab-canvases" data-testid="ab-view">
                <section class="ab-side" data-testid="canvas-a" aria-label={format!("Variant A: {label_a}")}>
                    <h3 class="ab-label"><span class="ab-letter">{"A"}</span>{ label_a.clone() }<span class="muted">{" · edit here"}</span></h3>
                    { a }
                </section>
                <section class="ab-side" data-testid="canvas-b" aria-label={format!("Variant B: {label_b}")}>
                    <h3 class="ab-label"><span class="ab-letter b">{"B"}</span>{ label_b.clone() }<span class="muted">{" · watch only"}</span></h3>
                    <MotionContext context={b.motion.clone()}>
                        <Graph snapshot={b.snapshot.clone()} dropping={b.dropping.clone()} selected={b.selected.clone()} on_select={p.on_select_b.clone()}
                            on_move={noop_move} on_connect={noop_connect} readonly=true present={p.present}
                            label={AttrValue::from(format!("Variant B canvas ({label_b}): watch only; select a block to chart it beside A's"))} />
                    </MotionContext>
                </section>
            </div>
            <AbTable labels={(label_a, label_b)} a={p.snapshot.clone()} b={b.snapshot.clone()} nodes={b.compared.clone()} judged={b.judged.clone()} on_close={p.on_close_compare.clone()} on_diverge={p.on_diverge.clone()} />
        </>
    }
}
