//! Keeping and sharing work: the scenario saved in the browser's local
//! storage after edits (a moment after the last, `app/keeping.rs`) and
//! restored on the next visit, share links that
//! carry the whole scenario in the URL fragment (no server involved), and
//! scenario files exported and imported.
//!
//! Guarantees: nothing here panics on what the browser hands back; a saved
//! scenario or a share link that does not load is reported and set aside,
//! and the page opens on the next source in line (link, then saved work,
//! then the built-in scenario). A save the browser refuses comes back as
//! its reason. Work saved before a share link opens (at load, or pasted
//! into an open tab), and work another tab saved since this one last read
//! or wrote it (two tabs share one slot), is kept aside until restored or
//! the next such; the save says when it did that.

use gloo_file::callbacks::FileReader;
use sluice_engine::scenario::MAX_SCENARIO_BYTES;
use sluice_engine::share::{self, Link};
use sluice_engine::{Scenario, SimTime};
use wasm_bindgen::{JsCast, JsValue};

/// Where the autosaved scenario lives in local storage. The suffix is the
/// scenario format version, so a future format never misreads this one.
const STORAGE_KEY: &str = "sluice.scenario.v1";

thread_local! {
    /// What this tab last read from the saved slot or wrote to it: a slot
    /// holding anything else was written by another tab since.
    static MINE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Where the work saved before a share link replaced it is kept, until
/// restored or replaced by the next link.
const EARLIER_KEY: &str = "sluice.scenario.v1.earlier";
/// Where another tab's saved work is kept when this tab's save replaces it
/// and the earlier slot is taken (its latest save, until restored).
const OTHER_TAB_KEY: &str = "sluice.scenario.v1.other-tab";

/// Beside the saved scenario: the link of the lesson open when it was
/// saved (at its start), if one was. A lesson's link opened again finds
/// the scenario its own, not work to keep aside.
const LESSON_KEY: &str = "sluice.scenario.v1.lesson";

/// The slots of kept work, the one offered first first.
const KEPT: [&str; 2] = [EARLIER_KEY, OTHER_TAB_KEY];

/// The most trace instants a scenario saved in the browser, or shared in
/// a link, holds (about 2 MB of text).
pub const KEPT_INSTANTS: usize = 100_000;

/// How many instants the scenario's traces hold in all.
pub fn replayed_instants(scenario: &Scenario) -> usize {
    scenario.nodes.iter().map(|n| match &n.block { sluice_engine::BlockSpec::Producer(p) => p.arrivals.trace_lines(), _ => 0 }).sum()
}

/// Saves `scenario` for the next visit, as compact JSON (a big scenario is
/// several times smaller than pretty-printed). Storage may be full or
/// switched off (private windows): the reason comes back, for the page to
/// say, and the page works on without it.
///
/// Another tab of the page saves to the same slot: if it did since this tab
/// last read or wrote it, its work is kept aside as the earlier work before
/// this save replaces it, and the save returns `Ok(true)`. `lesson` is the
/// link of the lesson open, noted beside it (`LESSON_KEY`).
pub fn autosave(scenario: &Scenario, lesson: Option<&Link>) -> Result<bool, String> {
    let Some(storage) = storage() else {
        return Err("this browser keeps nothing for the page (storage is switched off)".into());
    };
    // A replayed log is not written out at every edit: its text would
    // take seconds and more than the browser keeps for a page.
    let instants = replayed_instants(scenario);
    if instants > KEPT_INSTANTS {
        return Err(format!(
            "it replays {} instants, more than this browser keeps for a page ({}); a reload brings back the scenario as last saved",
            sluice_engine::thousands(instants as f64),
            sluice_engine::thousands(KEPT_INSTANTS as f64)
        ));
    }
    let text = sluice_engine::to_value(scenario).to_string();
    let there = storage.get_item(STORAGE_KEY).ok().flatten();
    let displaced = there.filter(|there| MINE.with(|mine| mine.borrow().as_ref() != Some(there)));
    if let Some(theirs) = &displaced {
        // Work already kept stays; theirs goes beside it.
        let free = matches!(storage.get_item(EARLIER_KEY), Ok(None));
        let _ = storage.set_item(if free { EARLIER_KEY } else { OTHER_TAB_KEY }, theirs);
    }
    storage
        .set_item(STORAGE_KEY, &text)
        .map_err(|_| format!("this browser refused to keep {} KB (its storage for the page is full)", text.len().div_ceil(1000)))?;
    MINE.with(|mine| *mine.borrow_mut() = Some(text));
    let _ = match lesson {
        Some(link) => storage.set_item(LESSON_KEY, &link.fragment()),
        None => storage.remove_item(LESSON_KEY),
    };
    Ok(displaced.is_some())
}

/// Notes `text` as what this tab last read from the saved slot.
fn read_as_mine(text: Option<String>) {
    MINE.with(|mine| *mine.borrow_mut() = text);
}

/// Work kept aside (from before a share link opened, or another tab's),
/// the first of it if there are two.
pub fn earlier_work() -> Option<String> {
    let storage = storage()?;
    KEPT.iter().find_map(|key| storage.get_item(key).ok().flatten())
}

/// Forgets the kept work `earlier_work` gives (restored, or set aside for
/// good); the other, if any, is offered next.
pub fn forget_earlier() {
    let Some(storage) = storage() else { return };
    if let Some(key) = KEPT.iter().find(|key| matches!(storage.get_item(key), Ok(Some(_)))) {
        let _ = storage.remove_item(key);
    }
}

/// Forgets kept work `text` once restored, wherever it is kept: the save of
/// the restored scenario may have kept another tab's work meanwhile.
pub fn forget_restored(text: &str) {
    let Some(storage) = storage() else { return };
    if let Some(key) = KEPT.iter().find(|key| storage.get_item(key).ok().flatten().as_deref() == Some(text)) {
        let _ = storage.remove_item(key);
    }
}

/// Keeps the saved work aside before a scenario from a link replaces it:
/// the next save would otherwise overwrite it with nothing to undo. Work
/// already kept stays (the oldest is the one a person would miss; what a
/// link opened in an open tab replaced is one Undo away), until it is
/// restored or dismissed.
fn keep_saved_as_earlier() {
    let Some(storage) = storage() else { return };
    if let (Ok(None), Ok(Some(saved))) = (storage.get_item(EARLIER_KEY), storage.get_item(STORAGE_KEY)) {
        let _ = storage.set_item(EARLIER_KEY, &saved);
    }
}

/// Keeps the saved work aside before a lesson's link opens it, unless the
/// saved scenario is the lesson's own: saved while that lesson was open
/// (a reload, say), or the very scenario of a lesson of the catalogue or
/// of the one the link carries, with nothing of the reader's in it. A
/// scenario that only shares a lesson's name is the reader's work.
fn keep_saved_aside_for_a_lesson(link: &Link) {
    let Some(storage) = storage() else { return };
    let Ok(Some(saved)) = storage.get_item(STORAGE_KEY) else { return };
    let at_its_start = match link {
        Link::Lesson { number, .. } => Link::Lesson { number: *number, step: None },
        other => other.clone(),
    };
    // Saved with this very lesson open: nothing more to read.
    if storage.get_item(LESSON_KEY).ok().flatten() == Some(at_its_start.fragment()) {
        return;
    }
    let read = |text: &str| Scenario::from_json_draft(text).ok();
    let untouched = read(&saved).is_some_and(|saved| {
        let written = match link {
            Link::WrittenLesson(code) => share::unpack(code, sluice_engine::lesson::MAX_LESSON_BYTES)
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .and_then(|lesson| read(&lesson["scenario"].to_string())),
            _ => None,
        };
        written.into_iter().chain(sluice_engine::lesson::SCENARIOS.iter().filter_map(|(_, text)| read(text))).any(|own| own == saved)
    });
    if !untouched {
        keep_saved_as_earlier();
    }
}

/// Forgets the saved scenario (the way out should it be what breaks the page).
pub fn forget_saved() {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(STORAGE_KEY);
    }
}

/// Where the page's scenario came from when it opened.
pub enum Origin {
    Shared,
    Saved,
    BuiltIn,
}

/// What the page opens with.
pub struct Opening {
    /// The share link's scenario, else the saved one, else the built-in.
    pub scenario: Scenario,
    pub origin: Origin,
    /// Why a link or saved scenario had to be set aside, if one was.
    pub problem: Option<String>,
    /// The lesson a link opens. The link stays in the address bar, so
    /// that a reload opens it again.
    pub lesson: Option<LessonLink>,
    /// The instant a link to a scenario opens its run at, paused.
    pub at: Option<SimTime>,
}

/// A lesson a link opens: one of the catalogue, by its number and its
/// step counted from 1, or one written by its reader, by its code.
#[derive(Clone, Debug, PartialEq)]
pub enum LessonLink {
    Numbered(u32, Option<u32>),
    Written(String),
}

/// What to open with: the share link's scenario, else the saved one, else
/// `built_in`, and the lesson a lesson link names.
pub fn opening(built_in: Scenario) -> Opening {
    let mut problem = None;
    let mut lesson = None;
    read_as_mine(storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()));
    match fragment_link() {
        None => {}
        Some(Ok(link @ (Link::Lesson { .. } | Link::WrittenLesson(_)))) => lesson = opened_lesson(link),
        Some(Ok(Link::Scenario { code, at })) => {
            // The fragment has done its job: later edits are saved, and a
            // reload must show them rather than the link's original.
            clear_fragment();
            match share::decode(&code) {
                Ok(s) => {
                    keep_saved_as_earlier();
                    return Opening { scenario: s, origin: Origin::Shared, problem: None, lesson: None, at };
                }
                Err(e) => problem = Some(format!("The share link could not be opened: {e}")),
            }
        }
        Some(Err(e)) => {
            clear_fragment();
            problem = Some(format!("The link could not be opened: {e}"));
        }
    }
    if let Some(text) = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()) {
        match Scenario::from_json_draft(&text) {
            Ok(s) => return Opening { scenario: s, origin: Origin::Saved, problem, lesson, at: None },
            Err(e) => {
                problem.get_or_insert_with(|| format!("The saved scenario could not be restored ({e}); the built-in one is open instead."));
            }
        }
    }
    Opening { scenario: built_in, origin: Origin::BuiltIn, problem, lesson, at: None }
}

/// A share link pasted into a tab already showing the page (only the
/// fragment changes, so the page is not loaded again): the scenario it
/// carries (and the instant it opens its run at), kept from the link after
/// the work on the page is set aside, or why the link does not open. A
/// lesson's link is `lesson_link`'s.
pub fn pasted_link() -> Option<Result<(Scenario, Option<SimTime>), share::ShareError>> {
    match fragment_link()? {
        Ok(Link::Lesson { .. } | Link::WrittenLesson(_)) => None,
        Ok(Link::Scenario { code, at }) => {
            clear_fragment();
            Some(share::decode(&code).inspect(|_| keep_saved_as_earlier()).map(|s| (s, at)))
        }
        Err(e) => {
            clear_fragment();
            Some(Err(e))
        }
    }
}

/// What a banner shows of a scenario a link opened: its name and
/// description, when it has either.
pub fn banner(scenario: &Scenario) -> Option<(String, String)> {
    let (name, description) = (scenario.name.trim(), scenario.description.trim());
    (!name.is_empty() || !description.is_empty()).then(|| (name.to_string(), description.to_string()))
}

/// The lesson the address bar's link opens (`opened_lesson`), for a link
/// pasted into a tab already showing the page.
pub fn lesson_link() -> Option<LessonLink> {
    opened_lesson(fragment_link()?.ok()?)
}

/// The lesson `link` opens, if it is a lesson's (one of the catalogue's by
/// its number and its step counted from 1, or one written by its reader):
/// the lesson takes the canvas, so the work saved before it is kept aside
/// first, as for a scenario's link.
fn opened_lesson(link: Link) -> Option<LessonLink> {
    let lesson = match &link {
        Link::Lesson { number, step } => LessonLink::Numbered(*number, *step),
        Link::WrittenLesson(code) => LessonLink::Written(code.clone()),
        Link::Scenario { .. } => return None,
    };
    keep_saved_aside_for_a_lesson(&link);
    Some(lesson)
}

/// The link in the address bar's fragment, if it is Sluice's.
fn fragment_link() -> Option<Result<Link, share::ShareError>> {
    let hash = web_sys::window()?.location().hash().ok()?;
    // Some mail and chat programs escape characters of a link they pass on.
    let hash = js_sys::decode_uri_component(&hash).ok().and_then(|c| c.as_string()).unwrap_or(hash);
    Link::read(&hash)
}

/// Shows the open lesson in the address bar (`#lesson=N`, its step
/// dropped, or a lesson of one's own as `#l=CODE`), so that a reload opens
/// it again, at its start, and the address is a link to it; a lesson
/// closed takes its link away. Any other fragment is left as it is.
pub fn show_lesson(open: Option<Link>) {
    let shown = match fragment_link() {
        Some(Ok(link @ (Link::Lesson { .. } | Link::WrittenLesson(_)))) => Some(link),
        _ => None,
    };
    match open {
        Some(link) if shown.as_ref() != Some(&link) => set_fragment(&link.fragment()),
        None if shown.is_some() => clear_fragment(),
        _ => {}
    }
}

fn clear_fragment() {
    set_fragment("");
}

/// Puts `fragment` in the address bar in place of the one there, without
/// a new entry in the history.
fn set_fragment(fragment: &str) {
    let Some(window) = web_sys::window() else { return };
    let location = window.location();
    let (Ok(path), Ok(search)) = (location.pathname(), location.search()) else { return };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{search}{fragment}")));
    }
}

/// A link to this page that opens `scenario`, paused at `at` of its run
/// when given.
pub fn share_link(scenario: &Scenario, at: Option<SimTime>) -> String {
    let link = match at {
        Some(at) => Link::scenario_at(scenario, at),
        None => Link::scenario(scenario),
    };
    format!("{}{}", page_address(), link.fragment())
}

/// This page's address without its fragment: a link's beginning.
pub fn page_address() -> String {
    web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}{}", l.origin().ok()?, l.pathname().ok()?, l.search().ok()?))
        })
        .unwrap_or_default()
}

/// Puts `text` on the clipboard, where the browser allows it (a secure page
/// and a user gesture). The page shows the text either way.
pub fn copy_to_clipboard(text: &str) {
    let Some(window) = web_sys::window() else { return };
    // `navigator.clipboard` is not in web-sys's stable API; reach it by name.
    let clipboard = js_sys::Reflect::get(&window.navigator(), &"clipboard".into()).ok();
    let write = clipboard
        .as_ref()
        .and_then(|c| js_sys::Reflect::get(c, &"writeText".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let (Some(clipboard), Some(write)) = (clipboard, write) {
        // A refusal comes back as a rejected promise, which nobody needs to
        // hear of: the link is on screen to copy by hand.
        if let Ok(promise) = write.call1(&clipboard, &text.into()).map(js_sys::Promise::from) {
            wasm_bindgen_futures::spawn_local(async move {
                let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
            });
        }
    }
}

/// A file name for `scenario`: its name made safe, or `scenario`.
pub fn file_name(scenario: &Scenario) -> String {
    let stem: String = scenario
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let stem = if stem.is_empty() { "scenario".to_string() } else { stem.chars().take(60).collect() };
    format!("{stem}.sluice.json")
}

/// Offers `text` as a JSON file download named `name`.
pub fn download(name: &str, text: &str) {
    download_as(name, text, "application/json");
}

/// Offers `text` as a file download named `name`, of type `mime`.
pub fn download_as(name: &str, text: &str, mime: &str) {
    let blob = gloo_file::Blob::new_with_options(text, Some(mime));
    let url = gloo_file::ObjectUrl::from(blob);
    download_url(name, &url);
    // The browser reads the object URL after the click returns; release it
    // a little later.
    gloo_timers::callback::Timeout::new(10_000, move || drop(url)).forget();
}

/// Offers what `url` holds (an object or a data URL) as a download.
pub fn download_url(name: &str, url: &str) {
    let Some(anchor) = gloo_utils::document()
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    else {
        return;
    };
    anchor.set_href(url);
    anchor.set_download(name);
    anchor.click();
}

/// Reads a file the user chose, refusing one too large to be a scenario
/// before reading it. `done` gets the text or the reason. The returned
/// reader must be kept until `done` has run (dropping it cancels the read).
pub fn read_file(file: web_sys::File, done: impl FnOnce(Result<String, String>) + 'static) -> Option<FileReader> {
    let file = gloo_file::File::from(file);
    let size = file.size();
    if size > MAX_SCENARIO_BYTES as u64 {
        done(Err(format!(
            "it is {:.1} MB; a scenario file may be at most {} MB",
            size as f64 / 1_048_576.0,
            MAX_SCENARIO_BYTES / 1_048_576
        )));
        return None;
    }
    let name = file.name();
    Some(gloo_file::callbacks::read_as_text(&file, move |result| {
        done(result.map_err(|e| format!("{name} could not be read: {e}")))
    }))
}

/// Where the numbers of the lessons this browser completed are kept, as
/// numbers with a space between.
const COMPLETED_KEY: &str = "sluice.lessons.completed";

/// The lessons this browser completed (none when storage is off or the
/// list does not read).
pub fn completed() -> std::collections::BTreeSet<u32> {
    let text = storage().and_then(|s| s.get_item(COMPLETED_KEY).ok().flatten()).unwrap_or_default();
    text.split_whitespace().filter_map(|n| n.parse().ok()).collect()
}

/// Notes that lesson `number` was completed; storage that is full or off
/// only forgets it.
pub fn complete(number: u32) {
    let mut done = completed();
    if done.insert(number) {
        if let Some(s) = storage() {
            let _ = s.set_item(COMPLETED_KEY, &done.iter().map(u32::to_string).collect::<Vec<_>>().join(" "));
        }
    }
}

/// Whether the page's address asks for presentation mode: `?present`
/// (`?present=0` or `=false` does not).
pub fn presenting_asked() -> bool {
    web_sys::window().and_then(|w| w.location().search().ok()).is_some_and(|search| asks_to_present(&search))
}

/// Whether a query string (`?a=1&present`) asks for presentation mode.
fn asks_to_present(search: &str) -> bool {
    search.trim_start_matches('?').split('&').any(|pair| match pair.split_once('=') {
        None => pair == "present",
        Some((key, value)) => key == "present" && !matches!(value, "0" | "false" | "no"),
    })
}

#[cfg(test)]
mod tests {
    use super::asks_to_present;

    #[test]
    fn present_in_the_query_asks_for_presentation_mode() {
        for yes in ["?present", "?present=1", "?lang=en&present", "present=yes"] {
            assert!(asks_to_present(yes), "{yes}");
        }
        for no in ["", "?", "?present=0", "?present=false", "?presenter", "?x=present", "?unpresent"] {
            assert!(!asks_to_present(no), "{no}");
        }
    }
}
