//! A turn's usage in words for the terminal: "1.2k in / 340 out" and "$0.0031", or "-" where
//! the harness reported nothing (never a zero made up for it).

use forkhost_core::TurnUsage;

/// A token count, short: 340, 1.2k, 19k, 1.5M.
fn count(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=9_999 => format!("{:.1}k", n as f64 / 1e3),
        10_000..=999_999 => format!("{}k", (n as f64 / 1e3).round() as u64),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// "1.2k in / 340 out", or "-".
pub fn tokens(usage: Option<&TurnUsage>) -> String {
    match usage {
        Some(u) => format!(
            "{} in / {} out",
            count(u.input_tokens),
            count(u.output_tokens)
        ),
        None => "-".into(),
    }
}

/// "$0.0031", or "-" when the harness reports no price.
pub fn cost(usage: Option<&TurnUsage>) -> String {
    match usage.and_then(|u| u.cost_usd) {
        Some(usd) if usd >= 1.0 => format!("${usd:.2}"),
        Some(usd) => format!("${usd:.4}"),
        None => "-".into(),
    }
}

/// The line `forkhost send` ends stderr with: the turn's tokens and cost as known.
pub fn line(usage: &TurnUsage) -> String {
    let mut line = format!("forkhost: this turn used {}", tokens(Some(usage)));
    if usage.cost_usd.is_some() {
        line.push_str(&format!(", {}", cost(Some(usage))));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_counts_and_a_cost_only_where_known() {
        let mut u = TurnUsage {
            input_tokens: 1234,
            output_tokens: 340,
            cached_input_tokens: None,
            cache_write_tokens: None,
            reasoning_tokens: None,
            cost_usd: None,
        };
        assert_eq!(tokens(Some(&u)), "1.2k in / 340 out");
        assert_eq!((cost(Some(&u)), tokens(None)), ("-".into(), "-".into()));
        u.cost_usd = Some(0.00312);
        assert_eq!(cost(Some(&u)), "$0.0031");
        u.input_tokens = 19_087;
        assert_eq!(
            line(&u),
            "forkhost: this turn used 19k in / 340 out, $0.0031"
        );
        assert_eq!(count(2_500_000), "2.5M");
    }
}
