//! Keeping work: export to a file, import one, share a link (and open one
//! pasted into this tab), and bring back work kept aside (from before a
//! share link opened, or another tab's). Each import is one undoable edit.

use sluice_engine::editor::EditError;
use sluice_engine::playground::{Command, PlayError};
use yew::prelude::*;

use crate::browser::keep;

use super::dispatch::Dispatch;
use super::Page;

/// What the toolbar and the messages above the canvas are given.
pub(crate) struct Keeping {
    /// The share link just made, while its box is open.
    pub shared: Option<String>,
    pub on_export: Callback<()>,
    pub on_import: Callback<web_sys::File>,
    pub on_share: Callback<()>,
    pub on_close_share: Callback<()>,
    pub on_restore_earlier: Callback<()>,
    pub on_forget_earlier: Callback<()>,
}

#[hook]
pub(crate) fn use_keeping(page: &Page, dispatch: &Dispatch) -> Keeping {
    let shared = use_state(|| None::<String>);
    // An import's file reader, kept alive until it has read the file.
    let reader = use_mut_ref(|| None::<gloo_file::callbacks::FileReader>);
    let on_export = {
        let session = page.session.clone();
        Callback::from(move |_: ()| {
            let s = session.borrow();
            keep::download(&keep::file_name(s.play.scenario()), &s.play.scenario().to_json_pretty());
        })
    };
    let on_import = {
        let (dispatch, page) = (dispatch.clone(), page.clone());
        Callback::from(move |file: web_sys::File| {
            let name = file.name();
            let (dispatch, page) = (dispatch.clone(), page.clone());
            let done = move |text: Result<String, String>| match text.map_err(|why| PlayError::Refused(EditError::Unreadable(why))).and_then(|text| dispatch(Command::Import(text))) {
                // The same scenario as the one on the canvas changes nothing,
                // and leaves nothing to undo.
                Ok(applied) if !applied.edited => {
                    page.status.set(Some(format!("{name} is the scenario already here: nothing changed.")));
                }
                Ok(_) => {
                    page.selected.set(Vec::new());
                    page.status.set(Some(format!("Opened {name}. Undo (Ctrl+Z) brings back what was there before.")));
                }
                Err(why) => {
                    page.status.set(None);
                    // Said once: the reason ends without a full stop of its own.
                    let why = why.to_string();
                    page.notice.set(Some(format!("{name} was not imported: {}. Your work is unchanged.", why.trim_end_matches('.'))));
                }
            };
            *reader.borrow_mut() = keep::read_file(file, done);
        })
    };
    let on_share = {
        let (session, shared) = (page.session.clone(), shared.clone());
        Callback::from(move |_: ()| {
            let link = keep::share_link(session.borrow().play.scenario());
            keep::copy_to_clipboard(&link);
            shared.set(Some(link));
        })
    };
    let on_close_share = use_callback(shared.clone(), |_: (), shared| shared.set(None));
    // Work kept aside: back as one undoable edit.
    let on_restore_earlier = {
        let (dispatch, page) = (dispatch.clone(), page.clone());
        Callback::from(move |_: ()| {
            let Some(text) = keep::earlier_work() else {
                page.earlier.set(false);
                return;
            };
            if dispatch(Command::Import(text.clone())).is_ok() {
                keep::forget_restored(&text);
                page.earlier.set(keep::earlier_work().is_some());
                page.selected.set(Vec::new());
                page.status.set(Some("Your earlier work is back. Undo (Ctrl+Z) brings back what was here before.".into()));
            }
        })
    };
    let on_forget_earlier = use_callback(page.earlier.clone(), |_: (), earlier| {
        keep::forget_earlier();
        earlier.set(keep::earlier_work().is_some());
    });
    // A share link pasted into this tab's address bar changes only the
    // fragment: the page opens it as it would on loading.
    {
        let (dispatch, page) = (dispatch.clone(), page.clone());
        use_effect_with((), move |_| {
            let listener = gloo_events::EventListener::new(&gloo_utils::window(), "hashchange", move |_| match keep::pasted_link() {
                None => {}
                Some(Ok(scenario)) => {
                    let text = sluice_engine::to_value(&scenario).to_string();
                    if dispatch(Command::Import(text)).is_ok() {
                        page.selected.set(Vec::new());
                        page.earlier.set(keep::earlier_work().is_some());
                        let name = if scenario.name.trim().is_empty() { "the scenario".to_string() } else { format!("\"{}\"", scenario.name) };
                        page.status.set(Some(format!("Opened {name} from the share link. Undo (Ctrl+Z) brings back what was there before.")));
                    }
                }
                Some(Err(why)) => page.notice.set(Some(format!("The share link could not be opened: {why}"))),
            });
            move || drop(listener)
        });
    }
    Keeping { shared: (*shared).clone(), on_export, on_import, on_share, on_close_share, on_restore_earlier, on_forget_earlier }
}
