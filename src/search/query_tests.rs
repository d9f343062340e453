use super::*;

fn text(t: &str, phrase: bool, last: bool) -> Expr {
    Expr::Text { text: t.into(), phrase, field: None, last }
}

#[test]
fn words_phrases_and_operators_parse() {
    assert_eq!(parse("a b"), Expr::And(vec![text("a", false, false), text("b", false, true)]));
    assert_eq!(parse("\"a b\" c "), Expr::And(vec![text("a b", true, false), text("c", false, false)]));
    assert_eq!(
        parse("a OR b -c"),
        Expr::And(vec![
            Expr::Or(vec![text("a", false, false), text("b", false, false)]),
            // An excluded word is never completed as a prefix.
            Expr::Not(Box::new(text("c", false, false)))
        ])
    );
    assert_eq!(
        parse("#x/y folder:/Notes/ path:en/P tag:#z"),
        Expr::And(vec![
            Expr::Tag("x/y".into()),
            Expr::Folder("Notes".into()),
            Expr::Path("en/P".into()),
            Expr::Tag("z".into())
        ])
    );
    assert_eq!(
        parse("title:(a b)"),
        Expr::And(vec![Expr::And(vec![
            Expr::Text { text: "a".into(), phrase: false, field: Some(TextField::Title), last: false },
            Expr::Text { text: "b".into(), phrase: false, field: Some(TextField::Title), last: true },
        ])])
    );
    // A hyphen inside a word is not a negation; an unknown field is just text.
    assert_eq!(parse("real-time"), Expr::And(vec![text("real-time", false, true)]));
    assert_eq!(parse("https://x.y"), Expr::And(vec![text("https://x.y", false, true)]));
}

#[test]
fn broken_syntax_is_read_leniently() {
    assert_eq!(parse("\"open tab"), Expr::And(vec![text("open tab", true, false)]));
    assert_eq!(parse("(a"), Expr::And(vec![Expr::And(vec![text("a", false, true)])]));
    assert_eq!(parse(") a"), Expr::And(vec![text("a", false, true)]));
    assert_eq!(parse(""), Expr::And(vec![]));
    assert_eq!(parse("tag:"), Expr::And(vec![text("tag", false, true)]));
}

#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    #[test]
    fn any_string_parses(input in "\\PC{0,40}") {
        let _ = parse(&input);
    }
}
