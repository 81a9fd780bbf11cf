//! Claude Code version by version (SPEC §13.T, §15.9): which row of the table a
//! recorded `version` falls in, what `auto` runs there, and which versions were
//! not sampled. Plain data and functions; the bundle strings behind each row are
//! in docs/harnesses.md.

use crate::vocab::PlanKind;

/// A row of SPEC §13.T1's table (`request.version_row`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VersionRow {
    /// 2.0.0–2.1.63: the token-budget microcompact (`budget`).
    Budget,
    /// 2.1.64–2.1.83: no client-side clearing.
    NoneEarly,
    /// 2.1.84–2.1.104: the time-based microcompact (`idle`).
    Idle,
    /// 2.1.105–2.1.284: no client-side clearing (only the context hint).
    NoneLate,
    /// 2.1.285–2.1.309: `idle-server`, keep 5.
    IdleServerKeep5,
    /// 2.1.310–2.1.332: `idle-server`, keep 12 (SPEC §17.C.U1: a PDF read
    /// attached to a message excludes `Read`).
    IdleServer310,
    /// 2.1.333: as 2.1.310–2.1.332, and a PDF row of one page-text read is a
    /// clearable result of its own.
    IdleServer333,
    /// 2.1.334–2.1.335: each read of an all-page-text PDF row is one.
    IdleServer334,
    /// 2.1.336 and later: as 2.1.334–2.1.335, and the idle gap less the pauses
    /// the host reports (none in published builds).
    IdleServer336,
    /// Below 2.0.0: no plan (§15.9).
    Before2,
    /// No version, or one that is not `X.Y.Z[-…]`.
    Unknown,
}

impl VersionRow {
    /// The row's name as the JSON gives it.
    pub fn name(self) -> &'static str {
        match self {
            VersionRow::Budget => "2.0.0-2.1.63",
            VersionRow::NoneEarly => "2.1.64-2.1.83",
            VersionRow::Idle => "2.1.84-2.1.104",
            VersionRow::NoneLate => "2.1.105-2.1.284",
            VersionRow::IdleServerKeep5 => "2.1.285-2.1.309",
            VersionRow::IdleServer310 => "2.1.310-2.1.332",
            VersionRow::IdleServer333 => "2.1.333",
            VersionRow::IdleServer334 => "2.1.334-2.1.335",
            VersionRow::IdleServer336 => "2.1.336+",
            VersionRow::Before2 => "before-2.0.0",
            VersionRow::Unknown => "unknown",
        }
    }

    /// The row of a recorded version (SPEC §13.T1, §15.9).
    pub fn of(v: Option<&str>) -> VersionRow {
        // Several passes ask this of every request, and a session has one
        // version or a few: the last answer is kept per thread.
        type Last = ([u8; 24], usize, VersionRow);
        thread_local! {
            static LAST: std::cell::Cell<Option<Last>> = const { std::cell::Cell::new(None) };
        }
        let Some(text) = v else {
            return VersionRow::Unknown;
        };
        let b = text.as_bytes();
        if let Some((bytes, len, row)) = LAST.get()
            && bytes.get(..len) == Some(b)
        {
            return row;
        }
        let row = VersionRow::of_parsed(text);
        if b.len() <= 24 {
            let mut bytes = [0; 24];
            bytes[..b.len()].copy_from_slice(b);
            LAST.set(Some((bytes, b.len(), row)));
        }
        row
    }

    fn of_parsed(v: &str) -> VersionRow {
        let Some(ver) = parse(v) else {
            return VersionRow::Unknown;
        };
        match ver {
            v if v < (2, 0, 0) => VersionRow::Before2,
            v if v <= (2, 1, 63) => VersionRow::Budget,
            v if v <= (2, 1, 83) => VersionRow::NoneEarly,
            v if v <= (2, 1, 104) => VersionRow::Idle,
            v if v <= (2, 1, 284) => VersionRow::NoneLate,
            v if v <= (2, 1, 309) => VersionRow::IdleServerKeep5,
            v if v <= (2, 1, 332) => VersionRow::IdleServer310,
            v if v <= (2, 1, 333) => VersionRow::IdleServer333,
            v if v <= (2, 1, 335) => VersionRow::IdleServer334,
            _ => VersionRow::IdleServer336,
        }
    }

    /// What claude `auto` runs in this row (SPEC §13.T1; §15.9: none before 2.0.0).
    pub fn auto_kind(self) -> Option<PlanKind> {
        match self {
            VersionRow::Budget => Some(PlanKind::Budget),
            VersionRow::Idle | VersionRow::Unknown => Some(PlanKind::Idle),
            VersionRow::IdleServerKeep5
            | VersionRow::IdleServer310
            | VersionRow::IdleServer333
            | VersionRow::IdleServer334
            | VersionRow::IdleServer336 => Some(PlanKind::IdleServer),
            VersionRow::NoneEarly | VersionRow::NoneLate | VersionRow::Before2 => None,
        }
    }

    /// Whether `auto` plans nothing here because the builds have no clearing
    /// (the `claude_auto_none` rows; before-2.0.0 says `claude_version_unknown`).
    pub fn is_auto_none(self) -> bool {
        matches!(self, VersionRow::NoneEarly | VersionRow::NoneLate)
    }

    /// Whether the version read is unusable (`claude_version_unknown`).
    pub fn is_unknown(self) -> bool {
        matches!(self, VersionRow::Unknown | VersionRow::Before2)
    }
}

/// `(X, Y, Z)` of a version `X.Y.Z` or `X.Y.Z-suffix` (SPEC §15.9): the numbers
/// compare as integers; spaces, a `v` prefix, more than three numeric parts or
/// any other tail make it unreadable (None).
pub fn parse(v: &str) -> Option<(u32, u32, u32)> {
    // A byte walk: every plan asks this of each request's version, and the
    // split-and-parse it replaced (kept in the tests as the reference) was 2 %
    // of a timeline's instructions.
    let core = v.as_bytes().split(|&b| b == b'-').next()?;
    let mut ver = [0u32; 3];
    let (mut part, mut digits) = (0, 0);
    for &b in core {
        match b {
            b'0'..=b'9' => {
                ver[part] = ver[part]
                    .checked_mul(10)?
                    .checked_add(u32::from(b - b'0'))?;
                digits += 1;
            }
            b'.' if digits > 0 && part < 2 => {
                part += 1;
                digits = 0;
            }
            _ => return None,
        }
    }
    (part == 2 && digits > 0).then_some((ver[0], ver[1], ver[2]))
}

/// The builds that were sampled (SPEC §13 header): 2.1.x patch numbers.
#[cfg(test)]
const SAMPLED: [u32; 35] = [
    22, 38, 45, 63, 70, 74, 76, 80, 84, 86, 88, 100, 104, 105, 107, 108, 109, 110, 112, 128, 156,
    200, 250, 270, 285, 295, 300, 310, 321, 332, 333, 334, 335, 336, 337,
];

/// The unsampled ranges of SPEC §13.T4, each with its nearest sampled builds
/// (None: newer than the last sampled build).
const UNSAMPLED: [((u32, u32), u32, Option<u32>); 5] = [
    ((64, 69), 63, Some(70)),
    ((81, 83), 80, Some(84)),
    ((271, 284), 270, Some(285)),
    ((301, 309), 300, Some(310)),
    ((322, 331), 321, Some(332)),
];

/// A version in an unsampled range of SPEC §13.T4: its nearest sampled builds
/// on each side, as words (`"2.1.63"`, `"2.1.70"`; above 2.1.337, the last
/// sampled (SPEC §17.C.U0), the upper one is "newer than 2.1.337").
pub fn unsampled(v: Option<&str>) -> Option<(String, String)> {
    let ver = parse(v?)?;
    if ver > (2, 1, 337) {
        return Some(("2.1.337".into(), "newer than 2.1.337".into()));
    }
    let (2, 1, z) = ver else {
        return None;
    };
    UNSAMPLED
        .iter()
        .find(|((lo, hi), _, _)| (*lo..=*hi).contains(&z))
        .map(|(_, a, b)| {
            let b = b.map_or("newer than 2.1.337".into(), |b| format!("2.1.{b}"));
            (format!("2.1.{a}"), b)
        })
}

/// Whether 2.1.`patch` is one of the sampled builds.
#[cfg(test)]
fn sampled(patch: u32) -> bool {
    SAMPLED.contains(&patch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The split-and-parse reading of SPEC §15.9 the byte walk replaced.
    fn parse_by_split(v: &str) -> Option<(u32, u32, u32)> {
        let (core, _suffix) = v.split_once('-').unwrap_or((v, ""));
        let mut parts = core.split('.');
        let mut num = || -> Option<u32> {
            let p = parts.next()?;
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        let ver = (num()?, num()?, num()?);
        parts.next().is_none().then_some(ver)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn spec_15_9_the_byte_walk_reads_versions_as_the_split_did(
            v in "[0-9.\\-a-z v]{0,14}|[0-9]{1,11}\\.[0-9]{1,11}\\.[0-9]{1,11}(-[a-z0-9.]{0,5})?"
        ) {
            prop_assert_eq!(parse(&v), parse_by_split(&v), "{:?}", v);
        }
    }

    #[test]
    fn spec_15_9_edge_versions_read_as_the_split_did() {
        for v in [
            "2.1.333",
            "2.1.333-beta.1",
            "v2.1.3",
            "2.1",
            "2.1.3.4",
            "2.1.3.",
            ".2.1",
            "2..1",
            "4294967295.0.0",
            "4294967296.0.0",
            "2.1.3-",
            "-2.1.3",
            "",
            "2.1.3 ",
            "02.01.03",
        ] {
            assert_eq!(parse(v), parse_by_split(v), "{v:?}");
        }
    }

    /// SPEC §13.T1: each row by its bounds, as `request.version_row` names it.
    #[test]
    fn t1_rows_by_their_bounds() {
        let row = |v: &str| VersionRow::of(Some(v)).name();
        assert_eq!(row("2.0.0"), "2.0.0-2.1.63");
        assert_eq!(row("2.1.63"), "2.0.0-2.1.63");
        assert_eq!(row("2.1.64"), "2.1.64-2.1.83");
        assert_eq!(row("2.1.83"), "2.1.64-2.1.83");
        assert_eq!(row("2.1.84"), "2.1.84-2.1.104");
        assert_eq!(row("2.1.104"), "2.1.84-2.1.104");
        assert_eq!(row("2.1.105"), "2.1.105-2.1.284");
        assert_eq!(row("2.1.284"), "2.1.105-2.1.284");
        assert_eq!(row("2.1.285"), "2.1.285-2.1.309");
        assert_eq!(row("2.1.309"), "2.1.285-2.1.309");
        // SPEC §17.C.U1: the old "2.1.310+" is four rows.
        assert_eq!(row("2.1.310"), "2.1.310-2.1.332");
        assert_eq!(row("2.1.332"), "2.1.310-2.1.332");
        assert_eq!(row("2.1.333"), "2.1.333");
        assert_eq!(row("2.1.334"), "2.1.334-2.1.335");
        assert_eq!(row("2.1.335"), "2.1.334-2.1.335");
        assert_eq!(row("2.1.336"), "2.1.336+");
        assert_eq!(row("2.1.337"), "2.1.336+");
        assert_eq!(row("3.0.0"), "2.1.336+");
        assert_eq!(row("1.0.128"), "before-2.0.0");
        assert_eq!(VersionRow::of(None).name(), "unknown");
    }

    /// SPEC §13.T1 `auto` column and §15.9 (before-2.0.0: no plan).
    #[test]
    fn t1_auto_runs_the_rows_kind() {
        let auto = |v: &str| VersionRow::of(Some(v)).auto_kind();
        assert_eq!(auto("2.1.17"), Some(PlanKind::Budget));
        assert_eq!(auto("2.1.70"), None);
        assert_eq!(auto("2.1.88"), Some(PlanKind::Idle));
        assert_eq!(auto("2.1.114"), None);
        assert_eq!(auto("2.1.300"), Some(PlanKind::IdleServer));
        assert_eq!(auto("2.1.332"), Some(PlanKind::IdleServer));
        for v in [
            "2.1.333", "2.1.334", "2.1.335", "2.1.336", "2.1.337", "2.2.0",
        ] {
            assert_eq!(auto(v), Some(PlanKind::IdleServer), "{v}");
        }
        assert_eq!(auto("1.0.30"), None);
        assert_eq!(VersionRow::of(None).auto_kind(), Some(PlanKind::Idle));
    }

    /// SPEC §15.9: integers, a `-…` suffix ignored; spaces, `v`, four parts: unknown.
    #[test]
    fn versions_compare_as_integers_and_odd_forms_are_unknown() {
        assert_eq!(parse("2.1.9"), Some((2, 1, 9)));
        assert!(parse("2.1.9") < parse("2.1.10"));
        assert_eq!(parse("2.1.30-beta.1"), Some((2, 1, 30)));
        for odd in [
            "v2.1.30", " 2.1.30", "2.1.30 ", "2.1.30.1", "2.1", "", "test", "2.1.x", "2..1",
        ] {
            assert_eq!(parse(odd), None, "{odd:?}");
            assert_eq!(VersionRow::of(Some(odd)), VersionRow::Unknown, "{odd:?}");
        }
    }

    /// SPEC §13.T4: the unsampled ranges name their nearest sampled builds.
    #[test]
    fn t4_unsampled_ranges_name_their_neighbours() {
        let n = |v: &str| unsampled(Some(v));
        let pair = |a: &str, b: &str| Some((a.to_string(), b.to_string()));
        assert_eq!(n("2.1.64"), pair("2.1.63", "2.1.70"));
        assert_eq!(n("2.1.69"), pair("2.1.63", "2.1.70"));
        assert_eq!(n("2.1.82"), pair("2.1.80", "2.1.84"));
        assert_eq!(n("2.1.280"), pair("2.1.270", "2.1.285"));
        assert_eq!(n("2.1.305"), pair("2.1.300", "2.1.310"));
        assert_eq!(n("2.1.330"), pair("2.1.321", "2.1.332"));
        // SPEC §17.C.U0: 2.1.333–2.1.337 are sampled.
        for v in ["2.1.333", "2.1.334", "2.1.335", "2.1.336", "2.1.337"] {
            assert_eq!(n(v), None, "{v}");
        }
        assert_eq!(n("2.1.338"), pair("2.1.337", "newer than 2.1.337"));
        assert_eq!(n("2.2.0"), pair("2.1.337", "newer than 2.1.337"));
        // Sampled or covered builds, and versions outside the ranges, are not.
        for v in [
            "2.1.63", "2.1.70", "2.1.84", "2.1.114", "2.1.270", "2.1.332", "1.0.5",
        ] {
            assert_eq!(n(v), None, "{v}");
        }
        // Every neighbour named is a sampled build.
        for (_, a, b) in UNSAMPLED {
            assert!(sampled(a) && b.is_none_or(sampled), "{a} {b:?}");
        }
    }
}
