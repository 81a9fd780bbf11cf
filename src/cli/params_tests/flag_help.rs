use crate::policy::params::*;

/// The api preset's readings and the switches that turn a parameter off
/// take their `--help` from the table, in every subcommand that has them.
#[test]
fn other_flags_take_their_help_from_the_table() {
    let flags: Vec<&str> = OTHER_KEYS
        .iter()
        .filter_map(|k| k.flag.map(|(f, _, _)| f))
        .chain(PARAMS.iter().filter_map(|p| p.off.map(|(f, _)| f)))
        .collect();
    assert_eq!(flags.len(), 5, "{flags:?}");
    let mut cmd = crate::cli::command();
    cmd.build();
    let mut found = 0;
    for s in cmd.get_subcommands() {
        for a in s.get_arguments() {
            let Some(long) = a.get_long() else { continue };
            if flags.iter().any(|f| f.trim_start_matches('-') == long) {
                let help = a.get_help().map(|h| h.to_string());
                assert_eq!(help, other_flag_help(long), "{} --{long}", s.get_name());
                assert!(help.is_some_and(|h| !h.is_empty()));
                found += 1;
            }
        }
    }
    assert!(found >= 5 * 3, "{found}");
}
