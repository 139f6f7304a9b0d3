//! Why? as commands: asked at a block (an entry of the log, the selected
//! block), the page pauses and shows the cause chain of run A at the
//! instant shown; asked where A and B part, the first instant they differ
//! and both runs' chains there; a link pressed shows the run at its
//! instant with its block selected; a band of a state strip pressed, the
//! change into its state there; a lesson's step that explains shows the
//! chain its verdict carries.

use std::rc::Rc;

use sluice_engine::explain::Asked;
use sluice_engine::lesson::Explained;
use sluice_engine::{SimTime, State};
use yew::prelude::*;

use super::Page;
use crate::view::selection::Select;
use crate::view::why::WhyView;

pub(super) struct Explaining {
    pub why: Option<Rc<WhyView>>,
    pub on_why: Callback<(usize, Asked)>,
    /// A band of a state strip pressed: its node's id, its state and its
    /// span in seconds; the change into that state there is explained.
    pub on_band: Callback<(String, State, f64, f64)>,
    /// A lesson step's explanation, from its verdict.
    pub on_explained: Callback<Explained>,
    pub on_link: Callback<(f64, usize)>,
    pub on_close: Callback<()>,
    pub on_diverge: Callback<()>,
}

#[hook]
pub(super) fn use_explaining(page: &Page, on_scrub: &Callback<Option<f64>>, on_select: &Callback<Select>) -> Explaining {
    let why = use_state(|| None::<Rc<WhyView>>);
    let on_why = {
        let (page, why) = (page.clone(), why.clone());
        Callback::from(move |(node, asked): (usize, Asked)| {
            // The chain speaks of one instant: the run waits on it.
            page.pause_to_read();
            let s = page.session.borrow();
            let id = s.play.scenario().nodes.get(node).map_or(String::new(), |n| n.id.clone());
            match s.play.explain(node, asked) {
                Some((subject, chain)) => why.set(Some(Rc::new(WhyView::of(&subject, &chain, &id)))),
                None => page.status.set(Some(format!("Nothing to explain at {id} yet: nothing was dropped, refused or changed there, or it is older than the run keeps."))),
            }
        })
    };
    let on_band = {
        let (page, on_why) = (page.clone(), on_why.clone());
        Callback::from(move |(id, to, from_s, to_s): (String, State, f64, f64)| {
            let node = page.session.borrow().play.index_of(&id);
            if let Some(node) = node {
                let (from, until) = (SimTime::from_secs_f64(from_s.max(0.0)), SimTime::from_secs_f64(to_s.max(from_s).max(0.0)));
                on_why.emit((node, Asked::Entered { to, from, until }));
            }
        })
    };
    let on_explained = {
        let (page, why) = (page.clone(), why.clone());
        Callback::from(move |e: Explained| {
            page.pause_to_read();
            let s = page.session.borrow();
            let id = s.play.scenario().nodes.get(e.subject.node()).map_or(String::new(), |n| n.id.clone());
            why.set(Some(Rc::new(WhyView::of(&e.subject, &e.chain, &id))));
        })
    };
    let on_diverge = {
        let (page, why) = (page.clone(), why.clone());
        Callback::from(move |_: ()| {
            page.pause_to_read();
            let s = page.session.borrow();
            match s.play.diverge() {
                Some(d) => why.set(Some(Rc::new(WhyView::parted(&d, |id| s.play.index_of(id))))),
                None => page.status.set(Some("A and B have not parted yet: every block stands alike in both so far.".to_string())),
            }
        })
    };
    let on_link = {
        let (on_scrub, on_select) = (on_scrub.clone(), on_select.clone());
        Callback::from(move |(at_s, node): (f64, usize)| {
            on_scrub.emit(Some(at_s));
            on_select.emit(Select::Only(node));
        })
    };
    let on_close = {
        let why = why.clone();
        Callback::from(move |_: ()| why.set(None))
    };
    Explaining { why: (*why).clone(), on_why, on_band, on_explained, on_link, on_close, on_diverge }
}
