//! `sluice run --arrivals FILE --decisions OUT`: a file's traffic read for
//! the engine, and every limiter decision written as it is made.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};

use sluice_engine::replay::{read_log, write_instant, KeyField, LogFormat, Replay};
use sluice_engine::shadow::Shadow;
use sluice_engine::{Decision, Simulation};

/// Reads `path` as a log in `format` (`None`: told from its first lines),
/// each request's key as `key` names it (`None`: the format's own); an
/// error names the file and the line. Lines sorted into order are said on
/// standard error.
pub fn read(path: &str, format: Option<&str>, key: Option<&str>) -> Result<Replay, String> {
    let shown = sluice_engine::printable(path, 200);
    let format = match format {
        None => None,
        Some(name) => Some(LogFormat::named(name).ok_or_else(|| {
            let names: Vec<&str> = LogFormat::ALL.iter().map(|f| f.name()).collect();
            format!("--log-format {}: expected one of {}", sluice_engine::printable(name, 60), names.join(", "))
        })?),
    };
    let key = key.map(KeyField::parse).transpose()?.unwrap_or_default();
    let file = File::open(path).map_err(|e| format!("--arrivals {shown}: cannot read it: {e}"))?;
    let (replay, _) = read_log(BufReader::new(file), format, &key).map_err(|why| format!("--arrivals {shown}: {why}"))?;
    if let Some(reordered) = replay.reordered {
        let _ = writeln!(io::stderr(), "sluice: --arrivals {shown}: {reordered}");
    }
    Ok(replay)
}

/// Where decisions go, as they are made.
pub struct Decisions {
    out: Box<dyn Write>,
    /// Written to standard output, in place of the summary.
    to_stdout: bool,
    shown: String,
    /// The reader stopped reading (`| head`): nothing more is written.
    closed: bool,
}

/// A CSV field: as it is, unless a comma, a quote or a line break asks for
/// quotes (RFC 4180).
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

impl Decisions {
    /// Opens `path` ("-": standard output) and writes the header.
    pub fn create(path: &str) -> Result<Decisions, String> {
        Decisions::open("--decisions", path, "created_s,key,node,outcome,at_s\n")
    }

    /// Opens `path` for the output of `flag`, beginning with `header`.
    fn open(flag: &'static str, path: &str, header: &str) -> Result<Decisions, String> {
        let shown = sluice_engine::printable(path, 200);
        let (out, to_stdout): (Box<dyn Write>, bool) = if path == "-" {
            (Box::new(BufWriter::new(io::stdout())), true)
        } else {
            let file = File::create(path).map_err(|e| format!("{flag} {shown}: cannot write it: {e}"))?;
            (Box::new(BufWriter::new(file)), false)
        };
        let mut decisions = Decisions { out, to_stdout, shown: format!("{flag} {shown}"), closed: false };
        decisions.line(header)?;
        Ok(decisions)
    }

    fn line(&mut self, text: &str) -> Result<(), String> {
        if self.closed {
            return Ok(());
        }
        match self.out.write_all(text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(format!("{}: cannot write it: {e}", self.shown)),
        }
    }

    /// Writes `decisions` (the run's since the last call); instants as the
    /// replayed file wrote them (from its whole second `origin_s`).
    pub fn write(&mut self, decisions: &[Decision], sim: &Simulation, origin_s: u64) -> Result<(), String> {
        let origin = origin_s.saturating_mul(1_000_000_000);
        for d in decisions {
            let row = format!(
                "{},{},{},{},{}\n",
                write_instant(origin.saturating_add(d.created.as_nanos())),
                field(&sim.key_name(d.key)),
                field(sim.node_id(d.node as usize)),
                d.outcome.as_str(),
                write_instant(origin.saturating_add(d.at.as_nanos())),
            );
            self.line(&row)?;
        }
        Ok(())
    }

    /// Flushes what is written; returns whether it went to standard
    /// output (which then carries nothing else).
    pub fn finish(mut self) -> Result<bool, String> {
        if self.closed {
            return Ok(self.to_stdout);
        }
        match self.out.flush() {
            Ok(()) => Ok(self.to_stdout),
            // A reader that stopped reading (`| head`) is a quiet end.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(self.to_stdout),
            Err(e) => Err(format!("{}: cannot write it: {e}", self.shown)),
        }
    }
}

/// `--shadow OUT`: one row per minute, limiter and key of what the
/// limiters did (`sluice_engine::shadow`), written once the run is over.
pub fn write_shadow(path: &str, shadow: &Shadow, sim: &Simulation) -> Result<bool, String> {
    let mut out = Decisions::open("--shadow", path, "minute_s,node,key,admitted,delayed,delay_mean_s,delay_max_s,refused\n")?;
    for (minute_s, node, key, c) in shadow.rows() {
        let row = format!(
            "{minute_s},{},{},{},{},{},{},{}\n",
            field(sim.node_id(node)),
            field(&sim.key_name(key)),
            c.admitted,
            c.delayed,
            seconds(c.delay_mean_s()),
            seconds(c.delay_max_s()),
            c.refused
        );
        out.line(&row)?;
    }
    out.finish()
}

/// Seconds to the microsecond, without trailing zeros.
fn seconds(s: f64) -> String {
    write_instant((s * 1e9).round() as u64 / 1000 * 1000)
}
