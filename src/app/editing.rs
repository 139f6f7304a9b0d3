//! Editing on the canvas, in the inspector and from the toolbar: each
//! gesture becomes one of the engine's commands, naming blocks by id.

use std::cell::RefCell;

use sluice_engine::playground::Command;
use sluice_engine::scenario::{Kind, Position};
use sluice_engine::{BlockSpec, FieldPath};
use yew::prelude::*;

use crate::components::graph::{client_to_canvas, edge_under, over_canvas};
use crate::view::observed::Session;
use crate::view::words::kind_label;
use crate::view::selection::Select;

use super::dispatch::Dispatch;
use super::Page;

/// Where a block dropped on the page lands: its point on the canvas, and
/// the edge (from, to) it goes on when dropped near one.
type Landing = (Option<Position>, Option<(String, String)>);

pub(crate) struct Editing {
    pub on_select: Callback<Select>,
    /// Clears the selection.
    pub on_close: Callback<()>,
    pub select_all: Callback<()>,
    /// New parameters of a block (id, block, whether a slider is still
    /// being dragged): the reason when refused.
    pub on_reconfigure: Callback<(String, BlockSpec, bool), Result<(), String>>,
    /// One number field of a block (id, field, value, whether a slider is
    /// still being dragged): the reason when refused.
    pub on_number: Callback<(String, FieldPath, f64, bool), Result<(), String>>,
    pub on_move: Callback<(Vec<usize>, f64, f64)>,
    pub on_connect: Callback<(usize, usize)>,
    /// "Connect to…" and "Disconnect" in the inspector, for the selected block.
    pub on_connect_to: Callback<String>,
    pub on_disconnect: Callback<String>,
    pub on_drop: Callback<(Kind, f64, f64)>,
    /// Where a block dragged from the palette would land: the words for
    /// its ghost, when on an edge.
    pub lands: Callback<(Kind, f64, f64), Option<String>>,
    /// The edge a block being dragged would go on, drawn marked.
    pub drop_edge: Option<(String, String)>,
    pub on_add: Callback<Kind>,
    pub delete: Callback<()>,
    pub duplicate: Callback<()>,
    pub undo: Callback<()>,
    pub redo: Callback<()>,
    pub on_new: Callback<()>,
    pub on_describe: Callback<(String, String)>,
}

/// The selected blocks still in the scenario (an undo may have taken one
/// away), in the order selected.
fn shown(session: &RefCell<Session>, selected: &[String]) -> Vec<String> {
    let s = session.borrow();
    s.ids_of(&s.indices_of(selected))
}

#[hook]
pub(crate) fn use_editing(page: &Page, dispatch: &Dispatch) -> Editing {
    let command = |make: fn() -> Command| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: ()| drop(dispatch(make())))
    };
    let (undo, redo) = (command(|| Command::Undo), command(|| Command::Redo));
    // A change asked for by position on a canvas or in the log, made to the
    // selection by id.
    let on_select = use_callback(page.selected.clone(), {
        let session = page.session.clone();
        move |change: Select, selected| {
            let s = session.borrow();
            let ids = s.ids_of(&change.applied_to(&s.indices_of(selected)));
            // A block chosen: its inspector comes into view beside the canvas.
            if !ids.is_empty() && ids != **selected {
                crate::browser::scroll::show_in_side(".inspector");
            }
            selected.set(ids);
        }
    });
    let on_close = use_callback(on_select.clone(), |_: (), on_select| on_select.emit(Select::Clear));
    let select_all = {
        let (session, selected) = (page.session.clone(), page.selected.clone());
        Callback::from(move |_: ()| selected.set(session.borrow().play.scenario().nodes.iter().map(|n| n.id.clone()).collect()))
    };
    // Stable from frame to frame (`dispatch` is made once), as the canvas
    // and the inspector are drawn again only when their props change.
    let on_reconfigure = use_callback((), {
        let dispatch = dispatch.clone();
        move |(id, block, continues): (String, BlockSpec, bool), _| {
            let command = if continues { Command::Adjust { id, block } } else { Command::SetBlock { id, block } };
            dispatch(command).map(drop).map_err(|why| why.to_string())
        }
    });
    let on_number = use_callback((), {
        let dispatch = dispatch.clone();
        move |(id, field, value, continues): (String, FieldPath, f64, bool), _| {
            let command = if continues { Command::AdjustNumber { id, field, value } } else { Command::SetNumber { id, field, value } };
            dispatch(command).map(drop).map_err(|why| why.to_string())
        }
    });
    let on_move = use_callback((), {
        let (dispatch, session) = (dispatch.clone(), page.session.clone());
        move |(indices, dx, dy): (Vec<usize>, f64, f64), _| {
            let ids = session.borrow().ids_of(&indices);
            let _ = dispatch(Command::Move { ids, dx, dy });
        }
    });
    let on_connect = use_callback((), {
        let (dispatch, session) = (dispatch.clone(), page.session.clone());
        move |(from, to): (usize, usize), _| {
            // (The session is borrowed for the ids alone: the command borrows it again.)
            let ids = session.borrow().ids_of(&[from, to]);
            if let Ok([from, to]) = <[String; 2]>::try_from(ids) {
                let _ = dispatch(Command::Connect { from, to });
            }
        }
    });
    let on_wire = |connect: bool| {
        let (dispatch, session, selected) = (dispatch.clone(), page.session.clone(), page.selected.clone());
        Callback::from(move |to: String| {
            let Some(from) = shown(&session, &selected).pop() else { return };
            let _ = dispatch(if connect { Command::Connect { from, to } } else { Command::Disconnect { from, to } });
        })
    };
    let (on_connect_to, on_disconnect) = (on_wire(true), on_wire(false));
    // Where a block dropped at a point of the screen lands: on the canvas
    // (its point there), and on an edge when near one (a block that takes
    // a message in goes between the edge's ends).
    let drop_target = {
        let session = page.session.clone();
        move |kind: Kind, x: f64, y: f64| -> Option<Landing> {
            let svg = gloo_utils::document().query_selector("svg.graph").ok().flatten();
            let svg = svg.filter(|svg| over_canvas(svg, x, y))?;
            let at = client_to_canvas(&svg, x, y).map(|(x, y)| Position { x: x.round(), y: y.round() });
            let on_edge = at.filter(|_| kind != Kind::Producer).and_then(|p| edge_under(session.borrow().play.scenario(), (p.x, p.y)));
            Some((at, on_edge))
        }
    };
    let drop_edge = use_state_eq(|| None::<(String, String)>);
    let on_drop = {
        let (dispatch, drop_target, drop_edge) = (dispatch.clone(), drop_target.clone(), drop_edge.clone());
        Callback::from(move |(kind, x, y): (Kind, f64, f64)| {
            drop_edge.set(None);
            let command = match drop_target(kind, x, y) {
                None => return,
                Some((Some(at), Some((from, to)))) => Command::Insert { kind, at, from, to },
                Some((at, _)) => Command::Add { kind, at },
            };
            let _ = dispatch(command);
        })
    };
    let lands = {
        let drop_edge = drop_edge.clone();
        Callback::from(move |(kind, x, y): (Kind, f64, f64)| {
            let edge = drop_target(kind, x, y).and_then(|(_, edge)| edge);
            drop_edge.set(edge.clone());
            edge.map(|(from, to)| format!("between {from} and {to}"))
        })
    };
    // A block added from the palette (a tap, or Enter) is selected and
    // brought into view (graph.rs), and the status says so: on a phone it
    // may land beyond the screen's edge.
    let on_add = {
        let (dispatch, status) = (dispatch.clone(), page.status.clone());
        Callback::from(move |kind: Kind| {
            if let Ok(applied) = dispatch(Command::Add { kind, at: None }) {
                if let Some(id) = applied.select.as_ref().and_then(|ids| ids.first()) {
                    status.set(Some(format!("Added {id}, a new {}: it is selected, and shown on the canvas.", kind_label(kind).to_lowercase())));
                }
            }
        })
    };
    let on_selected = |make: fn(Vec<String>) -> Command, clears: bool| {
        let (dispatch, session, selected) = (dispatch.clone(), page.session.clone(), page.selected.clone());
        Callback::from(move |_: ()| {
            let ids = shown(&session, &selected);
            if !ids.is_empty() && dispatch(make(ids)).is_ok() && clears {
                selected.set(Vec::new());
            }
        })
    };
    let (delete, duplicate) = (on_selected(Command::Remove, true), on_selected(Command::Duplicate, false));
    let on_new = {
        let (dispatch, selected, status) = (dispatch.clone(), page.selected.clone(), page.status.clone());
        Callback::from(move |_: ()| {
            if dispatch(Command::New).is_ok() {
                selected.set(Vec::new());
                status.set(Some("A new, empty canvas: add a producer from Blocks (drag it, or tap it) to begin. Undo (Ctrl+Z) brings back what was there.".into()));
            }
        })
    };
    let on_describe = use_callback((), {
        let dispatch = dispatch.clone();
        move |(name, description): (String, String), _| drop(dispatch(Command::Describe { name, description }))
    });
    Editing {
        on_select,
        on_close,
        select_all,
        on_reconfigure,
        on_number,
        on_move,
        on_connect,
        on_connect_to,
        on_disconnect,
        on_drop,
        lands,
        drop_edge: (*drop_edge).clone(),
        on_add,
        delete,
        duplicate,
        undo,
        redo,
        on_new,
        on_describe,
    }
}
