use super::*;

/// Issue 22 item 4: the options are read against the parameter table by
/// key: every parameter has its flag, no other flag but the api preset's
/// own readings, and the baseline's refusals are parameters of the table,
/// named by its flags.
#[test]
fn the_flags_given_are_the_parameter_table_s_keys() {
    let mut given: Vec<&str> = flags_given(&Opts::default())
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    given.sort_unstable();
    let mut table: Vec<&str> = crate::policy::params::PARAMS
        .iter()
        .map(|p| p.key)
        .collect();
    table.sort_unstable();
    // The api preset's readings of its edits are settings of their own
    // (`config --print` shows them), not rows of the table.
    let own = [
        "api_excluded_count_toward_keep",
        "api_placeholder",
        "api_trigger_inclusive",
    ];
    given.retain(|k| !own.contains(k));
    assert_eq!(given, table);
    assert!(flags_given(&Opts::default()).iter().all(|&(_, on)| !on));
    for k in RECORDED_REFUSES {
        assert!(crate::policy::params::by_key(k).is_some(), "{k}");
    }
    let opts = Opts {
        keep_recent: Some(2),
        no_protect_latest_turn: true,
        ..Opts::default()
    };
    let on: Vec<&str> = flags_given(&opts)
        .into_iter()
        .filter(|&(_, on)| on)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(on, ["keep_recent", "mask_protect_latest_turn"]);
    let said = UsageError::BaselineParams {
        path: "s.jsonl".into(),
        flags: baseline::flags_of(&["keep_recent", "mask_protect_latest_turn"]),
    }
    .to_string();
    assert!(
        said.ends_with("(got --keep-recent, --no-protect-latest-turn)"),
        "{said}"
    );
}
