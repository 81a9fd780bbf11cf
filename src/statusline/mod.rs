//! `mcscope statusline` (SPEC §12, §15.18): one line for Claude Code's status
//! bar — the context size and window, the hit rate, compactions, recorded
//! clearings and the last observed cache break with its first explanation —
//! from the status-line JSON on stdin. It never fails the bar: bad input, or a
//! transcript that is missing, unreadable or not a regular file, prints nothing.
//!
//! Fast after the first call: the running state is cached per transcript and
//! only the bytes appended since are read (`cache`); the state is folded line by
//! line (`fold`), so a continued read and a cold one give the same answer.

mod cache;
mod fold;
mod input;
mod read;
mod words;

/// The output for `stdin` (empty: print nothing): the text line, or with
/// `json` the §15.18 object.
pub fn run(stdin: &[u8], json: bool) -> String {
    let Some(input) = input::parse(stdin) else {
        return String::new();
    };
    let Some(answer) = answer(&input.transcript) else {
        return String::new();
    };
    // SPEC §16.S, §18.11: 1M where the id says so or a recorded prompt
    // passed 200,000 tokens.
    let window = input::window(input.model_id.as_deref(), answer.max_prompt);
    let now_ms = now_ms();
    // Each response priced at its own model's row (the table and the
    // configuration's rows).
    let config = crate::config::load().ok();
    let rows = config.map(|c| c.prices).unwrap_or_default();
    let price = |m: Option<&str>| crate::prices::price_with(m, &Default::default(), &rows).ok();
    let cost = words::Cost::of(&answer, &price, now_ms);
    if json {
        words::json(&answer, &cost, window, now_ms)
    } else {
        words::line(&answer, &cost, window, now_ms)
    }
}

/// The transcript's answer, continuing the cached state when it still fits.
fn answer(path: &std::path::Path) -> Option<fold::Answer> {
    let mut file = crate::load::regular::open_regular(path).ok()?;
    let canonical = std::fs::canonicalize(path).ok()?;
    let at = cache::entry_path(&canonical);
    let cached = at
        .as_deref()
        .and_then(|at| cache::load(at, &canonical, &file));
    let len = file.metadata().ok()?.len();
    let (mut fold, from) = match cached {
        // Nothing appended: no read, no write.
        Some(e) if e.offset == len => return Some(e.fold.answer()),
        Some(e) => (
            e.fold,
            read::Place {
                offset: e.offset,
                skipping: e.skipping,
            },
        ),
        None => (fold::Fold::default(), read::Place::default()),
    };
    let place = read::fold_from(&mut file, from, &mut fold).ok()?;
    let answer = fold.answer();
    if let Some(at) = at
        && (place != from || from.offset == 0)
        && let Some(e) = cache::entry(&canonical, &file, place, fold)
    {
        cache::save(&at, path, &e);
    }
    Some(answer)
}

/// Now, in Unix milliseconds: `MCSCOPE_NOW` (RFC 3339, for tests) or the clock.
fn now_ms() -> i64 {
    std::env::var("MCSCOPE_NOW")
        .ok()
        .and_then(|s| s.parse::<jiff::Timestamp>().ok())
        .unwrap_or_else(jiff::Timestamp::now)
        .as_millisecond()
}
