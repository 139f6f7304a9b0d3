//! A long trace (an access log replayed) as the inspector shows it: its
//! lists in words, not as a million numbers to render and edit.
//!
//! Guarantees: a producer whose trace holds more than `LISTED` instants
//! is shown with `times_s`, `keys` and `service_s` each replaced by a
//! sentence saying what it holds; a block made from that view (another
//! field changed) gets the lists back exactly as they were, shared, not
//! copied. Any other block is shown and read as it is.

use serde_json::{json, Value};
use sluice_engine::scenario::Arrivals;
use sluice_engine::BlockSpec;
use sluice_engine::thousands;

/// A trace longer than this is shown in words.
pub const LISTED: usize = 1_000;

/// The lists a trace may hold.
const LISTS: [&str; 3] = ["times_s", "keys", "service_s"];

fn long_trace(block: &BlockSpec) -> Option<&Arrivals> {
    match block {
        BlockSpec::Producer(p) if p.arrivals.trace_lines() > LISTED => Some(&p.arrivals),
        _ => None,
    }
}

/// `block` as its fields read it, a long trace's lists in words.
pub fn shown(block: &BlockSpec) -> Value {
    let Some(Arrivals::Trace { times_s, keys, service_s, .. }) = long_trace(block) else {
        return sluice_engine::to_value(block);
    };
    let mut light = block.clone();
    if let BlockSpec::Producer(p) = &mut light {
        if let Arrivals::Trace { times_s, keys, service_s, .. } = &mut p.arrivals {
            (*times_s, *keys, *service_s) = Default::default();
        }
    }
    let mut value = sluice_engine::to_value(&light);
    let n = times_s.len();
    let (first, last) = (times_s.first().copied().unwrap_or(0.0), times_s.last().copied().unwrap_or(0.0));
    let arrivals = &mut value["arrivals"];
    arrivals["times_s"] = json!(format!("{} instants, from {first:.3} s to {last:.3} s", thousands(n as f64)));
    if !keys.is_empty() {
        let keyed = keys.numbers().iter().filter(|&&k| k > 0).count();
        arrivals["keys"] = json!(format!("{} distinct keys, on {} of the {} messages", thousands(keys.names().len() as f64), thousands(keyed as f64), thousands(n as f64)));
    }
    if !service_s.is_empty() {
        let mean = service_s.iter().sum::<f64>() / service_s.len() as f64;
        let max = service_s.iter().copied().fold(0.0, f64::max);
        arrivals["service_s"] = json!(format!("{} service times, {mean:.4} s on average, {max:.3} s at most", thousands(service_s.len() as f64)));
    }
    value
}

/// The block a field's edit makes of `next` (read from `shown(block)`):
/// the lists shown in words are `block`'s own again.
pub fn read(next: &Value, block: &BlockSpec) -> Result<BlockSpec, String> {
    let in_words = next.pointer("/arrivals/times_s").is_some_and(Value::is_string);
    if !in_words {
        return sluice_engine::from_value(next);
    }
    let mut next = next.clone();
    for list in LISTS {
        if next["arrivals"].get(list).is_some_and(Value::is_string) {
            next["arrivals"][list] = json!([]);
        }
    }
    let mut read: BlockSpec = sluice_engine::from_value(&next)?;
    if let (BlockSpec::Producer(p), Some(Arrivals::Trace { times_s, keys, service_s, .. })) = (&mut read, long_trace(block)) {
        if let Arrivals::Trace { times_s: t, keys: k, service_s: s, .. } = &mut p.arrivals {
            (*t, *k, *s) = (times_s.clone(), keys.clone(), service_s.clone());
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_engine::scenario::LogLists;

    fn log(n: usize) -> BlockSpec {
        let lists = LogLists {
            times_s: (0..n).map(|i| i as f64 / 10.0).collect(),
            key_names: vec!["10.0.0.1".into(), "10.0.0.2".into()],
            keys: (0..n).map(|i| (i % 3) as u32).collect(),
            service_s: (0..n).map(|i| if i % 2 == 0 { 0.1 } else { 0.3 }).collect(),
        };
        lists.producer().unwrap()
    }

    #[test]
    fn a_long_trace_is_shown_in_words_and_an_edit_keeps_its_lists() {
        let block = log(5_000);
        let value = shown(&block);
        assert_eq!(value["arrivals"]["times_s"], json!("5,000 instants, from 0.000 s to 499.900 s"));
        assert_eq!(value["arrivals"]["keys"], json!("2 distinct keys, on 3,333 of the 5,000 messages"));
        assert_eq!(value["arrivals"]["service_s"], json!("5,000 service times, 0.2000 s on average, 0.300 s at most"));
        // Its kind and that kind's fields stay, though the lists are words.
        let kinds = sluice_engine::scenario::fields::arrival_kinds(value.get("arrivals"));
        assert_eq!(kinds.current, "trace");
        assert_eq!(kinds.params.iter().map(|p| p.name).collect::<Vec<_>>(), ["times_s", "keys", "service_s", "service_times"]);
        // Another field changed: the served-for choice.
        let mut next = value.clone();
        next["arrivals"]["service_times"] = json!("empirical");
        let edited = read(&next, &block).unwrap();
        let (BlockSpec::Producer(before), BlockSpec::Producer(after)) = (&block, &edited) else { panic!() };
        let (Arrivals::Trace { times_s: a, keys: ka, service_s: sa, .. }, Arrivals::Trace { times_s: b, keys: kb, service_s: sb, service_times, .. }) = (&before.arrivals, &after.arrivals) else { panic!() };
        assert!(std::sync::Arc::ptr_eq(a, b) && std::sync::Arc::ptr_eq(ka, kb) && std::sync::Arc::ptr_eq(sa, sb), "shared, not copied");
        assert_eq!(serde_json::to_value(service_times).unwrap(), json!("empirical"));
        // Another process chosen: no list comes back.
        let poisson = read(&json!({"kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 5}}), &block).unwrap();
        assert_eq!(sluice_engine::to_value(&poisson)["arrivals"]["process"], json!("poisson"));
    }

    #[test]
    fn a_short_trace_is_shown_as_it_is() {
        let block = log(LISTED);
        let value = shown(&block);
        assert_eq!(value["arrivals"]["times_s"].as_array().map(Vec::len), Some(LISTED));
        assert_eq!(read(&value, &block).unwrap(), block);
    }
}
