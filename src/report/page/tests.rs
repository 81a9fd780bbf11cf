use super::md::{esc, longest_backtick_run};
use super::*;

#[test]
fn the_longest_backtick_run_is_counted() {
    assert_eq!(longest_backtick_run("a ` b `` c ```` d"), 4);
    assert_eq!(longest_backtick_run("none"), 0);
}

#[test]
fn markdown_escapes_every_markup_character() {
    assert_eq!(esc("a|b<c>`d`"), "a\\|b\\<c\\>\\`d\\`");
    assert_eq!(
        esc("[x](y) *z* _w_ &amp;"),
        "\\[x\\]\\(y\\) \\*z\\* \\_w\\_ \\&amp;"
    );
}
