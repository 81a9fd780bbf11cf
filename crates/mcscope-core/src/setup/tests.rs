use super::*;

/// The baseline's refusals (`--policy recorded` with a parameter) are
/// parameters of the table, named by their flags.
#[test]
fn the_baseline_refuses_parameters_of_the_table_by_their_flags() {
    for k in RECORDED_REFUSES {
        assert!(crate::policy::params::by_key(k).is_some(), "{k}");
    }
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
