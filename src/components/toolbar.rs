//! The edit toolbar above the canvas: new, undo, redo, duplicate, delete,
//! export, import (a scenario, a server's configuration, or an access log
//! to replay), share and the
//! A/B comparison.

use yew::prelude::*;

use crate::components::import_button::ImportButton;

#[derive(Properties, PartialEq)]
pub struct ToolbarProps {
    pub can_undo: bool,
    pub can_redo: bool,
    /// Some block is selected (duplicate and delete act on the selection).
    pub selected: bool,
    /// An A/B comparison is open.
    pub comparing: bool,
    /// Starts from an empty canvas (undoable).
    pub on_new: Callback<()>,
    pub on_undo: Callback<()>,
    pub on_redo: Callback<()>,
    pub on_duplicate: Callback<()>,
    pub on_delete: Callback<()>,
    pub on_export: Callback<()>,
    pub on_import: Callback<web_sys::File>,
    /// An access log to replay as a trace producer.
    pub on_log: Callback<web_sys::File>,
    /// Opens the dialog that imports a server's configuration.
    pub on_import_config: Callback<()>,
    pub on_share: Callback<()>,
    /// Opens or closes the comparison.
    pub on_compare: Callback<()>,
}

fn button(label: &'static str, test_id: &'static str, title: &'static str, enabled: bool, cb: &Callback<()>) -> Html {
    let cb = cb.clone();
    html! {
        <button data-testid={test_id} title={title} disabled={!enabled} onclick={Callback::from(move |_: MouseEvent| cb.emit(()))}>
            { label }
        </button>
    }
}

#[function_component(Toolbar)]
pub fn toolbar(p: &ToolbarProps) -> Html {
    let on_compare = p.on_compare.clone();
    html! {
        <div class="toolbar" role="toolbar" aria-label="Edit">
            { button("New", "new", "Start from an empty canvas (Undo brings back what was there)", true, &p.on_new) }
            { button("↶ Undo", "undo", "Undo (Ctrl+Z)", p.can_undo, &p.on_undo) }
            { button("↷ Redo", "redo", "Redo (Ctrl+Shift+Z or Ctrl+Y)", p.can_redo, &p.on_redo) }
            { button("Duplicate", "duplicate", "Duplicate the selected blocks (Ctrl+D)", p.selected, &p.on_duplicate) }
            { button("✕ Delete", "delete", "Delete the selected blocks (Delete)", p.selected, &p.on_delete) }
            <span class="toolbar-gap"></span>
            { button("⤓ Export", "export", "Save the scenario as a JSON file", true, &p.on_export) }
            <ImportButton on_file={p.on_import.clone()} />
            <ImportButton on_file={p.on_log.clone()} label="⤒ Log…" test_id="log" accept=".log,.txt,.csv,.har,.json,text/plain,text/csv"
                title="Replay an access log (nginx, Envoy, HAR or CSV; or drop it on the canvas): it becomes a producer sending its requests at their instants, with their keys and durations"
                file_label="Access log to replay" />
            { button("Import configuration…", "import-config", "Turn a server's limits (nginx.conf, haproxy.cfg, envoy.yaml) into blocks on the canvas", true, &p.on_import_config) }
            { button("↗ Share link", "share", "Make a link that opens this scenario (copied to the clipboard)", true, &p.on_share) }
            <button data-testid="ab-toggle" aria-pressed={p.comparing.to_string()} onclick={Callback::from(move |_: MouseEvent| on_compare.emit(()))}
                title="Run a copy of this scenario beside it (B), on the same seed from time zero; edit A and compare">
                { if p.comparing { "Close A/B" } else { "⇄ A/B" } }
            </button>
        </div>
    }
}
