//! Numbers written for people: the styles the engine, the command line
//! and the page write figures in, each once, named for what it is for.
//! None is a general formatter; each keeps the figures its place needs.
//! (A time axis's labels, in the chart's unit, are written where they are
//! drawn, with `thousands`.)

/// Rounded to a whole number, with thousands separators: 3000 → "3,000",
/// 1234567.8 → "1,234,568". Not finite: "–". (The page's words and the
/// watchdog's messages.)
pub fn thousands(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v.round() < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// Four significant figures, in scientific notation outside 0.001 to a
/// million: a sweep's table (`sluice sweep`).
pub fn significant(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if (1e-3..1e6).contains(&v.abs()) {
        let decimals = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.3e}")
    }
}

/// Four significant figures, whole from a thousand up: the Sweep panel's
/// table.
pub fn four_figures(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

/// As written for ordinary magnitudes, in scientific notation for the
/// extreme ones: a varied value.
pub fn as_written(v: f64) -> String {
    if v != 0.0 && !(1e-6..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// As a person would write it in a file: `1e9` rather than ten digits,
/// `1e300` rather than three hundred (validation's messages).
pub fn readable(v: f64) -> String {
    let a = v.abs();
    if a >= 1e7 || (a > 0.0 && a < 1e-4) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Whole numbers as such, others to three decimals at most, none from a
/// hundred up: a lesson's figures and bounds.
pub fn plain(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.is_finite() && v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.is_finite() {
        format!("{:.3}", v).trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        "—".to_string()
    }
}

/// Rounded to a millionth, as a person types it: a sweep's range in its
/// form.
pub fn typed(v: f64) -> String {
    let rounded = (v * 1e6).round() / 1e6;
    format!("{rounded}")
}

/// Three significant figures at most, so that measured and predicted line
/// up (the Theory panel).
pub fn three_figures(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1e}")
    }
}

/// A probability as a percentage, one decimal (scientific below 0.1 %).
pub fn percent(p: f64) -> String {
    if p == 0.0 {
        "0 %".to_string()
    } else if p >= 0.001 {
        format!("{:.1} %", p * 100.0)
    } else {
        format!("{:.1e} %", p * 100.0)
    }
}

/// Short for a chart's axis: 1500 → "1.5k".
pub fn axis(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// An offered load as a block shows it: two decimals, "over 99" past that.
pub fn load(rho: f64) -> String {
    if rho > 99.0 {
        "over 99".into()
    } else {
        format!("{rho:.2}")
    }
}

/// B as a multiple of A, two decimals ("×1.50"); "=" when both are
/// zero, "–" when only A is (the A/B table).
pub fn times(a: f64, b: f64) -> String {
    if a == 0.0 {
        if b == 0.0 { "=".to_string() } else { "–".to_string() }
    } else {
        format!("×{:.2}", b / a)
    }
}

/// Bytes in binary units, one decimal: "1.5 KiB", "2.0 MiB", "12 B".
pub fn bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_style_keeps_its_figures() {
        assert_eq!(thousands(3000.0), "3,000");
        assert_eq!(thousands(1_234_567.8), "1,234,568");
        assert_eq!(thousands(-1234.0), "-1,234");
        assert_eq!(thousands(f64::NAN), "–");
        assert_eq!(significant(0.0), "0");
        assert_eq!(significant(1.23456), "1.235");
        assert_eq!(significant(12345.6), "12346");
        assert_eq!(significant(2.5e7), "2.500e7");
        assert_eq!(significant(0.0001234), "1.234e-4");
        assert_eq!(four_figures(2.5e7), "25000000");
        assert_eq!(four_figures(0.5), "0.5000");
        assert_eq!(as_written(0.25), "0.25");
        assert_eq!(as_written(1e20), "1e20");
        assert_eq!(readable(1e9), "1e9");
        assert_eq!(readable(12.5), "12.5");
        assert_eq!(plain(3.0), "3");
        assert_eq!(plain(0.12345), "0.123");
        assert_eq!(plain(0.5), "0.5");
        assert_eq!(plain(1234.56), "1235");
        assert_eq!(plain(f64::INFINITY), "—");
        assert_eq!(typed(0.1 + 0.2), "0.3");
        assert_eq!(three_figures(123.4), "123");
        assert_eq!(three_figures(12.34), "12.3");
        assert_eq!(three_figures(0.0), "0.00");
        assert_eq!(three_figures(0.001234), "1.2e-3");
        assert_eq!(percent(0.0), "0 %");
        assert_eq!(percent(0.25), "25.0 %");
        assert_eq!(percent(0.00001), "1.0e-3 %");
        assert_eq!(axis(1500.0), "1500");
        assert_eq!(axis(15000.0), "15k");
        assert_eq!(axis(2.5e6), "2.5M");
        assert_eq!(axis(2.5), "2.5");
        assert_eq!(axis(0.25), "0.250");
        assert_eq!(load(1.5), "1.50");
        assert_eq!(load(150.0), "over 99");
        assert_eq!(times(2.0, 3.0), "×1.50");
        assert_eq!(times(0.0, 0.0), "=");
        assert_eq!(times(0.0, 1.0), "–");
        assert_eq!(bytes(12), "12 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(2 << 20), "2.0 MiB");
    }
}
