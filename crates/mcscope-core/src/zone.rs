//! The display time zone and the date window (SPEC §7a): text outputs, the TUI
//! and HTML show recorded times in one zone with its abbreviation; JSON keeps
//! the recorded strings. `--since`/`--until` are whole days in that zone.
//!
//! The zone is process-wide on purpose: the picker's dates, the TUI header, the
//! reports and the session filter must agree, and every one of them reads it here.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};
use std::io::BufRead;
use std::path::Path;
use std::sync::RwLock;

/// How a time is shown: `2026-02-14 22:28:40 CET` (`UTC` for UTC).
const SHOWN: &str = "%Y-%m-%d %H:%M:%S %Z";

/// The recorded time `at` in the display zone, or `at` as recorded when it is
/// not an RFC 3339 timestamp (a transcript's bytes are untrusted; nothing is
/// dropped, the caller sanitizes).
pub fn local(at: &str) -> String {
    local_in(at, &display())
}

/// As [`local`], in `tz`.
pub fn local_in(at: &str, tz: &TimeZone) -> String {
    match at.trim().parse::<Timestamp>() {
        Ok(ts) => ts.to_zoned_datetime(tz.clone()).strftime(SHOWN).to_string(),
        Err(_) => at.to_string(),
    }
}

/// A file time (the picker's date column) in the display zone, as `fmt`
/// (strftime); `%Z` adds the zone's abbreviation.
pub fn file_time(t: std::time::SystemTime, fmt: &str) -> String {
    match Timestamp::try_from(t) {
        Ok(ts) => ts.to_zoned_datetime(display()).strftime(fmt).to_string(),
        Err(_) => "?".into(),
    }
}

static DISPLAY: RwLock<Option<TimeZone>> = RwLock::new(None);

/// The display zone: the one set by `-z`, else the system's (`TZ` honoured;
/// UTC where the system names none).
pub fn display() -> TimeZone {
    if let Ok(set) = DISPLAY.read()
        && let Some(tz) = set.as_ref()
    {
        return tz.clone();
    }
    TimeZone::try_system().unwrap_or(TimeZone::UTC)
}

/// Sets the display zone for the rest of the process (the CLI, once, from `-z`).
pub fn set_display(tz: TimeZone) {
    if let Ok(mut set) = DISPLAY.write() {
        *set = Some(tz);
    }
}

/// `-z NAME`: an IANA zone name (`Europe/Berlin`, `UTC`); the bundled database
/// answers where the system has none.
pub fn parse_zone(name: &str) -> Result<TimeZone, String> {
    TimeZone::get(name.trim()).map_err(|_| {
        format!("unknown time zone {name:?} (an IANA name, e.g. Europe/Berlin or UTC)")
    })
}

/// `--since`/`--until DATE`: `YYYYMMDD` or `YYYY-MM-DD`.
pub fn parse_date(s: &str) -> Result<Date, String> {
    let t = s.trim();
    let dashed = match t.len() {
        8 if t.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{}-{}-{}", &t[..4], &t[4..6], &t[6..])
        }
        _ => t.to_string(),
    };
    let ok = dashed.len() == 10
        && dashed.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    let bad = || format!("{s:?}: expected a date as YYYYMMDD or YYYY-MM-DD");
    if !ok {
        return Err(bad());
    }
    dashed
        .parse::<Date>()
        .map_err(|_| format!("{s:?}: not a date"))
}

/// Days of sessions to keep, both ends included, in a zone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Window {
    pub since: Option<Date>,
    pub until: Option<Date>,
}

impl Window {
    /// Whether any end is set (else every session is kept, with or without a time).
    pub fn is_set(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Whether `ts` falls on a day of the window, days read in `tz`.
    pub fn contains(&self, ts: Timestamp, tz: &TimeZone) -> bool {
        let day = ZonedDateTime::new(ts, tz.clone()).date();
        self.since.is_none_or(|s| day >= s) && self.until.is_none_or(|u| day <= u)
    }

    /// Keeps the sessions whose first record with a timestamp falls in the
    /// window, in the display zone; a session without one has no day and is
    /// left out when the window is set.
    pub fn keep<T>(&self, items: Vec<T>, path: impl Fn(&T) -> &Path) -> Vec<T> {
        if !self.is_set() {
            return items;
        }
        let tz = display();
        items
            .into_iter()
            .filter(|it| first_timestamp(path(it)).is_some_and(|ts| self.contains(ts, &tz)))
            .collect()
    }

    /// The window in words for a note: `from 2026-02-01 to 2026-02-14`.
    pub fn words(&self) -> String {
        let mut w = Vec::new();
        if let Some(s) = self.since {
            w.push(format!("from {s}"));
        }
        if let Some(u) = self.until {
            w.push(format!("to {u}"));
        }
        w.join(" ")
    }
}

/// The records looked at for a first timestamp: a session's first records carry
/// one (a summary line or two may come first), so a file that has none in its
/// first lines is read as having none, without reading a large file to its end.
const LINES_LOOKED_AT: usize = 200;

/// The `timestamp` of the first record that has one (SPEC §15.25), as a light
/// read of the file's first lines; `None` for a file without one, unreadable,
/// or not JSON lines.
pub fn first_timestamp(path: &Path) -> Option<Timestamp> {
    #[derive(serde::Deserialize)]
    struct Probe {
        timestamp: Option<serde_json::Value>,
    }
    let file = std::fs::File::open(path).ok()?;
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    for _ in 0..LINES_LOOKED_AT {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        let Ok(probe) = serde_json::from_slice::<Probe>(&line) else {
            continue;
        };
        if let Some(serde_json::Value::String(t)) = probe.timestamp
            && let Ok(ts) = t.trim().parse::<Timestamp>()
        {
            return Some(ts);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_show_in_the_zone_with_its_abbreviation() {
        let berlin = parse_zone("Europe/Berlin").unwrap();
        assert_eq!(
            local_in("2026-02-14T21:28:40.123Z", &berlin),
            "2026-02-14 22:28:40 CET"
        );
        assert_eq!(
            local_in("2026-07-14T21:28:40Z", &berlin),
            "2026-07-14 23:28:40 CEST"
        );
        assert_eq!(
            local_in("2026-04-02T09:14:03.118Z", &TimeZone::UTC),
            "2026-04-02 09:14:03 UTC"
        );
        // Not a timestamp: as recorded.
        assert_eq!(local_in("yesterday", &berlin), "yesterday");
        assert!(parse_zone("Mars/Olympus").is_err());
    }

    #[test]
    fn dates_take_two_forms_and_days_are_inclusive_in_the_zone() {
        assert_eq!(parse_date("20260214"), parse_date("2026-02-14"));
        for bad in ["2026-2-14", "soon", "20261340", "2026-02-30", ""] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
        let w = Window {
            since: parse_date("2026-02-14").ok(),
            until: parse_date("2026-02-14").ok(),
        };
        let berlin = parse_zone("Europe/Berlin").unwrap();
        // 23:30 UTC on the 13th is the 14th in Berlin, not in UTC.
        let ts: Timestamp = "2026-02-13T23:30:00Z".parse().unwrap();
        assert!(w.contains(ts, &berlin));
        assert!(!w.contains(ts, &TimeZone::UTC));
        let late: Timestamp = "2026-02-14T23:59:59Z".parse().unwrap();
        assert!(w.contains(late, &TimeZone::UTC));
        assert!(!w.contains(late, &berlin));
    }
}
