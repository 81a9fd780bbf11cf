//! A clearing record's ids against what a simulation newly cleared at the same
//! place (SPEC §10): agrees, missing, extra, or unknown.

/// A record's ids against what a simulation newly cleared at the same place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// None: unknown, because the record's id list could not be read in full
    /// and the ids that could be read do not already disagree (`agrees: null`
    /// in the JSON, as for a record that was not compared).
    pub agrees: Option<bool>,
    /// The record's list was incomplete (entries that were not strings, or no
    /// list): `extra` may hold ids the record named in a form mcscope cannot read.
    pub incomplete: bool,
    /// Ids the record names that the simulation did not newly clear (record order).
    pub missing: Vec<String>,
    /// Ids the simulation newly cleared that the record does not name (its order).
    pub extra: Vec<String>,
    /// In a partial transcript, ids the record names that no `tool_use` of the
    /// file holds: unknown rather than `missing` (SPEC §15.2).
    pub absent: Vec<String>,
    /// How many ids the record names (readable ones).
    pub named: usize,
}

impl Comparison {
    /// In words, for people: `agrees`, or the ids `missing` and `extra`.
    pub fn words(&self) -> String {
        let n = self.absent.len();
        let before = |n: usize| {
            format!(
                "{n} id{} named before this file's first line cannot be compared [{}]",
                if n == 1 { "" } else { "s" },
                crate::sanitize::joined(&self.absent, ", ")
            )
        };
        if self.agrees == Some(true) {
            // Agreement over no id at all is no agreement (SPEC §15.2: the
            // JSON says `absent`; the words say what it means).
            return match (n, self.named.saturating_sub(n)) {
                (0, _) => "agrees".into(),
                (n, 0) => format!("{}: nothing to agree or disagree with", before(n)),
                (n, held) => format!(
                    "agrees on the {held} id{} the file holds; {}",
                    if held == 1 { "" } else { "s" },
                    before(n)
                ),
            };
        }
        let mut parts = Vec::new();
        if self.incomplete {
            parts.push(
                match self.agrees {
                    None => "unknown: the record's compactedToolIds could not all be read (see the warnings)",
                    Some(_) => "the record's compactedToolIds could not all be read (see the warnings)",
                }
                .to_string(),
            );
        }
        if !self.missing.is_empty() {
            parts.push(format!(
                "missing [{}] (named by the record, not cleared by the plan)",
                crate::sanitize::joined(&self.missing, ", ")
            ));
        }
        if !self.extra.is_empty() {
            parts.push(format!(
                "extra [{}] (cleared by the plan, not named by the record)",
                crate::sanitize::joined(&self.extra, ", ")
            ));
        }
        if n > 0 {
            parts.push(before(n));
        }
        parts.join("; ")
    }
}

/// The record's ids (all of them readable) against the simulation's.
pub fn compare(record: &[String], simulated: &[String]) -> Comparison {
    compare_ids(record, true, simulated)
}

/// As [`compare`], for a record whose list may be incomplete: the ids it names
/// that the plan did not clear still disagree, but with an incomplete list no
/// match proves agreement.
pub fn compare_ids(record: &[String], complete: bool, simulated: &[String]) -> Comparison {
    let missing: Vec<String> = record
        .iter()
        .filter(|id| !simulated.contains(id))
        .cloned()
        .collect();
    let extra: Vec<String> = simulated
        .iter()
        .filter(|id| !record.contains(id))
        .cloned()
        .collect();
    // An id the record names that the plan did not clear disagrees whatever
    // else the record held; an `extra` may be one of the unreadable entries.
    let agrees = if !missing.is_empty() {
        Some(false)
    } else if complete {
        Some(extra.is_empty())
    } else {
        None
    };
    Comparison {
        agrees,
        incomplete: !complete,
        missing,
        extra,
        absent: Vec::new(),
        named: record.len(),
    }
}

impl Comparison {
    /// SPEC §15.2: in a partial session, the `missing` ids no `tool_use` of the
    /// file holds go to `absent`, and `agrees` is computed over the ids present.
    pub fn split_absent(mut self, held: &dyn Fn(&str) -> bool) -> Comparison {
        let (present, absent): (Vec<String>, Vec<String>) = std::mem::take(&mut self.missing)
            .into_iter()
            .partition(|id| held(id));
        self.missing = present;
        self.absent = absent;
        self.agrees = if !self.missing.is_empty() {
            Some(false)
        } else if !self.incomplete {
            Some(self.extra.is_empty())
        } else {
            None
        };
        self
    }
}
