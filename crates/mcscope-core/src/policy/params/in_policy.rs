//! How each key of the parameter table shows in the JSON `policy` object
//! (SPEC §7, §15.3, §15.6): `policy_json` makes the object of these rows.

use super::{PlanKind, Policy};
use serde_json::Value;

/// How a key shows in the JSON `policy` object (SPEC §7, §15.3, §15.6):
/// `policy_json` makes the object of these, key by key.
#[derive(Debug, Clone, Copy)]
pub struct InPolicy {
    /// Its place among the object's keys, the schema's order: the shared
    /// keys, then prune's, the api preset's, mask's.
    pub place: u8,
    /// Where the object holds the key at all.
    pub holds: Holds,
    /// The policy's value as the object shows it (a named kind's value).
    pub value: fn(&Policy) -> Value,
    /// How the kinds in force settle it.
    pub over: Over,
    /// The policy's own mark that its value was given, where it keeps one
    /// (else the setup's record of where each key came from says).
    pub given: Option<fn(&Policy) -> bool>,
}

/// Where the `policy` object holds a key.
#[derive(Debug, Clone, Copy)]
pub enum Holds {
    /// Always (a shared key: null where no kind in force reads it).
    Always,
    /// Where the policy's preset offers a kind that reads it (a harness
    /// plan's own keys: mask's, prune's), null under `recorded`.
    WhereRead,
    /// Where the policy's plan kind is one the function holds (the api
    /// preset's keys).
    WhereKind(fn(PlanKind) -> bool),
}

/// How the kinds in force settle a key's value in the `policy` object.
#[derive(Debug, Clone, Copy)]
pub enum Over {
    /// It names the run (the plan kind, the preset): the policy's value,
    /// under `recorded` too.
    Names,
    /// The policy's value, the same for every kind (a switch, the api
    /// preset's edits); null under `recorded`, as every value (SPEC §15.3).
    Held,
    /// The value each kind in force used at its request, where they all
    /// used the same, else null (SPEC §5, §15.6).
    Used {
        /// The value kind `k` uses under the policy at a request of
        /// `version` (its None: it takes none); None: the policy's value,
        /// whatever the kind.
        used: Option<Used>,
        settle: Settle,
    },
}

/// How a value the kinds use is settled over the requests.
#[derive(Debug, Clone, Copy)]
pub struct Settle {
    /// Whether the kinds settle it under a named kind too; else only under
    /// `auto` (where a kind that does not read the key used none), and a
    /// named kind's object holds the policy's value.
    pub every_kind: bool,
    /// Whether a value given (a flag, the sidecar, the config) stands over
    /// the ones used.
    pub given_stands: bool,
    /// Whether every kind reads it (the delivery); else, under `auto`, a
    /// kind that does not read it (`Plan::reads`) used none.
    pub all_read: bool,
    /// Its value where no kind is in force and none was chosen at a request
    /// (a session without requests, or kinds that never run).
    pub none: NoneInForce,
}

/// A settled value where no kind is in force (see [`Settle::none`]); where
/// `auto` chose no kind at the requests of a session, it is null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoneInForce {
    Null,
    Policy,
    /// The policy's value, but null under `auto`.
    PolicyUnlessAuto,
}

/// The value plan kind `k` uses under the policy at a request of `version`
/// (None: it takes none).
pub type Used = fn(PlanKind, &Policy, Option<&str>) -> Option<Value>;

/// Settled by the kinds under `auto` only, a given value standing: the
/// numeric keys of one plan or another (SPEC §15.6).
pub const UNDER_AUTO: Settle = Settle {
    every_kind: false,
    given_stands: true,
    all_read: false,
    none: NoneInForce::Null,
};

/// Settled by the kinds in force under every plan kind, a given value
/// standing, null where no kind is in force.
pub const EVERY_KIND: Settle = Settle {
    every_kind: true,
    ..UNDER_AUTO
};

impl InPolicy {
    /// A key that names the run (the plan kind, the preset).
    pub const fn names(place: u8, value: fn(&Policy) -> Value) -> InPolicy {
        InPolicy {
            place,
            holds: Holds::Always,
            value,
            over: Over::Names,
            given: None,
        }
    }

    /// A switch: the policy's value.
    pub const fn held(place: u8, value: fn(&Policy) -> Value) -> InPolicy {
        InPolicy {
            over: Over::Held,
            ..InPolicy::names(place, value)
        }
    }

    /// A number every kind reads from the policy, settled under `auto` by
    /// the kinds that read it.
    pub const fn number(place: u8, value: fn(&Policy) -> Value) -> InPolicy {
        InPolicy {
            over: Over::Used {
                used: None,
                settle: UNDER_AUTO,
            },
            ..InPolicy::names(place, value)
        }
    }

    /// A value each kind may use its own of (`used`), settled as `settle`
    /// says.
    pub const fn by_kind(
        place: u8,
        value: fn(&Policy) -> Value,
        used: Used,
        settle: Settle,
    ) -> InPolicy {
        InPolicy {
            over: Over::Used {
                used: Some(used),
                settle,
            },
            ..InPolicy::names(place, value)
        }
    }

    /// A key of the api preset's: the policy's value, where the api plan
    /// runs.
    pub const fn api(place: u8, value: fn(&Policy) -> Value) -> InPolicy {
        InPolicy {
            holds: Holds::WhereKind(PlanKind::is_api),
            ..InPolicy::held(place, value)
        }
    }

    /// The same, a harness plan's own key: held where the preset offers a
    /// kind that reads it.
    pub const fn own(self) -> InPolicy {
        InPolicy {
            holds: Holds::WhereRead,
            ..self
        }
    }

    /// The same, the policy marking whether the value was given.
    pub const fn given(self, mark: fn(&Policy) -> bool) -> InPolicy {
        InPolicy {
            given: Some(mark),
            ..self
        }
    }
}

/// Minutes as the `policy` object prints them: a whole number as an integer.
pub fn whole(minutes: f64) -> Value {
    serde_json::to_value(crate::numbers::number(minutes)).unwrap_or(Value::Null)
}
