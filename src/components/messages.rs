//! What the page has to say above the canvas: the name and description of
//! a scenario opened from a link, the share link last made, a
//! passing status, a refused edit, why the watchdog stopped the run, and
//! what the draft still lacks before it runs.
//!
//! Guarantees: both regions are always in the page, empty or not, so that a
//! screen reader announces what appears in them: the polite one (share link,
//! status, what the draft lacks) when the reader is free, the alert (a
//! refused edit or import, the watchdog's stop) at once.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MessagesProps {
    /// The name and description of the scenario a link opened, for the
    /// student who followed it to read, until closed.
    pub banner: Option<(AttrValue, AttrValue)>,
    pub on_close_banner: Callback<()>,
    /// The link last made with "Share link", shown until closed.
    pub shared: Option<String>,
    pub on_close_share: Callback<()>,
    /// A passing message: a link copied, a file imported.
    pub status: Option<String>,
    /// Why the last edit was refused.
    pub notice: Option<String>,
    /// Why the watchdog stopped A or B.
    pub stall: Option<String>,
    /// What the draft still lacks.
    pub missing: Vec<String>,
    /// Whether the rest of the draft runs meanwhile.
    pub running: bool,
    /// Whether the work saved before a share link opened is kept.
    pub earlier: bool,
    pub on_restore_earlier: Callback<()>,
    pub on_forget_earlier: Callback<()>,
}

#[function_component(Messages)]
pub fn messages(p: &MessagesProps) -> Html {
    let close = p.on_close_share.clone();
    let restore = p.on_restore_earlier.reform(|_: MouseEvent| ());
    let forget = p.on_forget_earlier.reform(|_: MouseEvent| ());
    let close_banner = p.on_close_banner.reform(|_: MouseEvent| ());
    html! {
        <div class="messages">
            if let Some((name, description)) = p.banner.clone() {
                <section class="banner" data-testid="banner" aria-label="The scenario of the link">
                    <div>
                        if !name.is_empty() {
                            <h2 data-testid="banner-name">{ name }</h2>
                        }
                        if !description.is_empty() {
                            <p data-testid="banner-description">{ description }</p>
                        }
                    </div>
                    <button class="icon" aria-label="Close the scenario's description" onclick={close_banner}>{"×"}</button>
                </section>
            }
            <div class="live" role="status" aria-live="polite" data-testid="live-status">
                if let Some(link) = p.shared.clone() {
                    <div class="share" data-testid="share-panel">
                        <label for="share-link">{"Anyone who opens this link gets this scenario (copied to the clipboard):"}</label>
                        <input id="share-link" data-testid="share-link" readonly=true value={link}
                            onfocus={Callback::from(|e: FocusEvent| {
                                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                                input.select();
                            })} />
                        <button class="icon" aria-label="Close the share link" onclick={Callback::from(move |_: MouseEvent| close.emit(()))}>{"×"}</button>
                    </div>
                }
                if let Some(text) = p.status.clone() {
                    <div class="info" data-testid="status">{ text }</div>
                }
                if p.earlier {
                    <div class="info earlier" data-testid="earlier">
                        {"Earlier work is kept in this browser (from before a share link, or another tab's). "}
                        <button data-testid="restore-earlier" onclick={restore}>{"Restore it"}</button>
                        <button class="icon" aria-label="Forget the earlier work" onclick={forget}>{"×"}</button>
                    </div>
                }
                if !p.missing.is_empty() {
                    <div class="missing" data-testid="missing">
                        <strong>{ if p.running { "Not connected yet (the rest runs): " } else { "Not running yet: " } }</strong>
                        { p.missing.join("; ") }
                    </div>
                }
            </div>
            <div class="live" role="alert" data-testid="live-alert">
                if let Some(why) = p.notice.clone() {
                    <div class="notice" data-testid="notice">{ why }</div>
                }
                if let Some(why) = p.stall.clone() {
                    <div class="notice stall" data-testid="stall">
                        { why }
                        {" Change the scenario and it runs again from time zero; Reset starts it again as it is."}
                    </div>
                }
            </div>
        </div>
    }
}
