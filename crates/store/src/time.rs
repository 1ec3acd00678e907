//! Wall-clock helpers: unix milliseconds for rows, and a UTC stamp for moved-aside file names.

use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// `YYYYMMDDTHHMMSSZ` for a unix time in seconds (the epoch for one out of range).
pub(crate) fn utc_stamp(unix_secs: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(unix_secs)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps_known_instants() {
        assert_eq!(super::utc_stamp(0), "19700101T000000Z");
        assert_eq!(super::utc_stamp(951_782_400), "20000229T000000Z");
        assert_eq!(super::utc_stamp(1_795_980_852), "20261129T193412Z");
    }
}
