use crate::setup::Opts;

/// Issue 42 item 5: every flag of the parameter table is made by it and read
/// back by its key, through the real command line and through `Opts::with`
/// alike.
#[test]
fn every_flag_of_the_table_is_given_by_its_key() {
    use crate::policy::params::{self, Takes};
    use clap::FromArgMatches;
    let mut n = 0;
    for f in params::flags() {
        let value = match f.takes {
            Takes::Count | Takes::Tokens => Some("3".to_string()),
            Takes::Chars => Some("-1".into()),
            Takes::Minutes => Some("7.5".into()),
            Takes::Named(names) => names().get(1).map(|s| s.to_string()),
            Takes::Text => Some("x".into()),
            Takes::Json => Some("{}".into()),
            Takes::On | Takes::Off => None,
        };
        let flag = format!("--{}", f.long);
        let mut argv = vec![
            "mcscope".to_string(),
            "plan".into(),
            "s.jsonl".into(),
            flag.clone(),
        ];
        argv.extend(value.clone());
        let m = crate::cli::command().try_get_matches_from(&argv).unwrap();
        let cli = crate::cli::Cli::from_arg_matches(&m).unwrap();
        let Some(crate::cli::Command::Plan { opts, .. }) = cli.command else {
            panic!("{argv:?}: not plan");
        };
        assert_eq!(opts.given.keys().collect::<Vec<_>>(), [f.key], "{flag}");
        let by_hand = Opts::default().with(&flag, value.as_deref().unwrap_or(""));
        assert_eq!(by_hand.given, opts.given, "{flag}");
        n += 1;
    }
    // Every parameter's flag, the two switches that turn one off, the api
    // preset's three readings.
    assert_eq!(n, params::PARAMS.len() + 2 + 3);
    assert!(Opts::default().given.keys().next().is_none());
    let opts = Opts::default()
        .with("--keep-recent", "2")
        .with("--no-protect-latest-turn", "");
    assert_eq!(
        opts.given.keys().collect::<Vec<_>>(),
        ["keep_recent", "mask_protect_latest_turn"]
    );
}
