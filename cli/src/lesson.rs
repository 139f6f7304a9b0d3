//! `sluice lesson`: the built-in lessons listed, or one followed step by
//! step as a diligent learner would, each step's verdict with its figures
//! and, for a step that explains, the chain the page opens.

use crate::{read_scenario_text, read_text};

/// A lesson file from disk, checked whole; a scenario it names is looked
/// for beside it first, then among the built-in ones.
pub fn lesson_file(path: &str) -> Result<sluice_engine::lesson::Lesson, String> {
    let text = read_text(path, sluice_engine::lesson::MAX_LESSON_BYTES, "lesson")?;
    let dir = std::path::Path::new(path).parent().map(std::path::Path::to_path_buf).unwrap_or_default();
    // Only a plain file name: a lesson does not reach elsewhere.
    let plain = |name: &str| !name.is_empty() && std::path::Path::new(name).file_name() == Some(std::ffi::OsStr::new(name));
    // A scenario file beside it that is there but does not read is said,
    // not passed over for a built-in one of that name.
    let named = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v["scenario"].as_str().map(String::from));
    let found = match named.filter(|name| plain(name) && dir.join(name).exists()) {
        Some(name) => Some((name.clone(), read_scenario_text(&dir.join(&name).to_string_lossy())?)),
        None => None,
    };
    let beside = |name: &str| found.as_ref().filter(|(n, _)| n == name).map(|(_, text)| text.clone());
    let shown = sluice_engine::printable(path, 200);
    sluice_engine::lesson::Lesson::read(&text, &beside).map_err(|why| format!("{shown}: {why}"))
}

pub fn lesson(which: Option<&str>) -> Result<String, String> {
    let lessons = sluice_engine::lesson::catalogue();
    let Some(which) = which else {
        let line = |l: &sluice_engine::lesson::Lesson| {
            let start = if l.text.start_here { ", start here" } else { "" };
            let minutes = sluice_engine::playground::lesson_minutes(&l.text);
            format!("{:>2}. {} (about {minutes} min{start}): {}\n", l.text.number, l.text.title, l.text.summary)
        };
        return Ok(lessons.iter().map(line).collect());
    };
    let from_file;
    let lesson = match which.parse::<u32>() {
        Ok(number) => &lessons[sluice_engine::lesson::linked(&lessons, number, None).map_err(|e| e.to_string())?.0],
        Err(_) => {
            from_file = lesson_file(which)?;
            &from_file
        }
    };
    let outcomes = sluice_engine::playground::follow(lesson).map_err(|why| why.to_string())?;
    let mut out = format!("Lesson {}: {}\n", lesson.text.number, lesson.text.title);
    for (k, (step, outcome)) in lesson.text.steps.iter().zip(&outcomes).enumerate() {
        let verdict = if outcome.verdict.passed { "as the lesson says" } else { "NOT as the lesson says" };
        // A sweep step runs on copies beside the run, at no time of it.
        let when = match &step.sweep {
            Some(sweep) => format!("a sweep of {}", sweep.vary),
            None => format!("{:.1} s to {:.1} s", outcome.began_s, outcome.judged_s),
        };
        out.push_str(&format!(
            "\nstep {}, {when}: {verdict}\n  try:    {}\n  expect: {}\n",
            k + 1,
            step.try_this,
            step.expect
        ));
        if let Some(ask) = &step.ask {
            // The page waits for the learner's change; followed here, it
            // is made as "Do it for me" makes it.
            let made = ask.done_for_them(&step.changes).map(|c| c.value.to_string()).unwrap_or_default();
            out.push_str(&format!("  asks:   {}.{} {} (made here as \"Do it for me\" makes it: {made})\n", ask.node, ask.field, ask.wanted()));
        }
        for r in &outcome.verdict.results {
            out.push_str(&format!("  {} {}\n", if r.passed { "ok  " } else { "FAIL" }, r.text));
        }
        // A step that explains: the chain the page opens at its verdict.
        for line in outcome.verdict.explained.iter().flat_map(|e| e.chain.links.iter()) {
            out.push_str(&format!("       {:.3} s {}\n", line.at.as_secs_f64(), line.text));
        }
    }
    if outcomes.iter().all(|o| o.verdict.passed) {
        Ok(out)
    } else {
        Err(out)
    }
}
