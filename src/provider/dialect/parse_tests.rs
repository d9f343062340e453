use serde_json::json;

use super::*;

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "write".into(),
        description: "Writes a note.".into(),
        input_schema: json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}, "overwrite": {"type": "boolean"},
            "tags": {"type": "array"}}}),
    }]
}

fn split_all(chunks: &[&str]) -> Vec<Piece> {
    let mut splitter = CallSplitter::default();
    let mut pieces: Vec<Piece> = chunks.iter().flat_map(|c| splitter.push(c)).collect();
    pieces.extend(splitter.finish());
    // Join neighbouring prose, which may arrive in any number of pieces.
    let mut joined: Vec<Piece> = Vec::new();
    for piece in pieces {
        match (joined.last_mut(), piece) {
            (Some(Piece::Text(a)), Piece::Text(b)) => a.push_str(&b),
            (_, piece) => joined.push(piece),
        }
    }
    joined
}

#[test]
fn prose_and_blocks_in_every_dialect_at_every_split() {
    let text = "Let me look.\n```tool_call\n{\"name\": \"a\", \"arguments\": {}}\n```\nThen [TOOL_CALL]{\"name\": \"b\"}[/TOOL_CALL] and <tool_call><invoke name=\"c\"></invoke></tool_call> done. A ```python block``` and [brackets] <b>stay</b>.";
    let expected = vec![
        Piece::Text("Let me look.\n".into()),
        Piece::Call { dialect: TextToolDialect::FencedJson, body: "\n{\"name\": \"a\", \"arguments\": {}}\n".into() },
        Piece::Text("\nThen ".into()),
        Piece::Call { dialect: TextToolDialect::BracketTag, body: "{\"name\": \"b\"}".into() },
        Piece::Text(" and ".into()),
        Piece::Call { dialect: TextToolDialect::XmlInvoke, body: "<invoke name=\"c\"></invoke>".into() },
        Piece::Text(" done. A ```python block``` and [brackets] <b>stay</b>.".into()),
    ];
    assert_eq!(split_all(&[text]), expected);
    for cut in 1..text.len() {
        if text.is_char_boundary(cut) {
            assert_eq!(split_all(&[&text[..cut], &text[cut..]]), expected, "cut at {cut}");
        }
    }
    let chars: Vec<String> = text.chars().map(String::from).collect();
    let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(split_all(&refs), expected, "one character at a time");
}

#[test]
fn prose_is_not_held_longer_than_needed() {
    let mut splitter = CallSplitter::default();
    assert_eq!(splitter.push("Hello [TOOL"), vec![Piece::Text("Hello ".into())]);
    assert_eq!(splitter.push("S] ok"), vec![Piece::Text("[TOOLS] ok".into())]);
}

#[test]
fn a_call_cut_off_at_the_end_is_still_read() {
    let pieces =
        split_all(&["[TOOL_CALL]{\"name\": \"write\", \"arguments\": {\"path\": \"a.md\", \"content\": \"# Ti"]);
    let Piece::Call { dialect, body } = &pieces[0] else { panic!("{pieces:?}") };
    let calls = parse_block(*dialect, body, &tools());
    assert_eq!(
        calls,
        vec![ParsedCall { name: "write".into(), arguments: Ok(json!({"path": "a.md", "content": "# Ti"})) }]
    );
}

#[test]
fn json_calls_in_the_spellings_models_use() {
    let read = |body: &str| parse_block(TextToolDialect::BracketTag, body, &tools());
    let ok = |name: &str, args: serde_json::Value| ParsedCall { name: name.into(), arguments: Ok(args) };
    assert_eq!(read(r#"{"name": "write", "arguments": {"path": "a"}}"#), vec![ok("write", json!({"path": "a"}))]);
    assert_eq!(read(r#"{"name": "write", "parameters": {"path": "a"}}"#), vec![ok("write", json!({"path": "a"}))]);
    assert_eq!(read(r#"{"tool": "write", "input": {"path": "a"}}"#), vec![ok("write", json!({"path": "a"}))]);
    assert_eq!(
        read(r#"{"function": {"name": "write", "arguments": "{\"path\": \"a\"}"}}"#),
        vec![ok("write", json!({"path": "a"}))],
        "OpenAI style, with arguments as a JSON string"
    );
    assert_eq!(read("{'name': 'write', 'arguments': {'path': 'a',}}"), vec![ok("write", json!({"path": "a"}))]);
    assert_eq!(read(r#"{"name": "list"}"#), vec![ok("list", json!({}))]);
    assert_eq!(
        read(r#"[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]"#),
        vec![ok("a", json!({})), ok("b", json!({"x": 1}))]
    );
    let fenced = parse_block(TextToolDialect::FencedJson, "s\n{\"name\": \"write\"}\n", &tools());
    assert_eq!(fenced, vec![ok("write", json!({}))], "```tool_calls: the rest of the fence line is skipped");
}

#[test]
fn unreadable_calls_become_errors_for_the_model() {
    let calls = parse_block(TextToolDialect::BracketTag, r#"{"name": "write", "arguments": 42}"#, &tools());
    assert_eq!(calls[0].name, "write");
    assert_eq!(calls[0].arguments, Err("the arguments are not a JSON object: 42".into()));

    let calls = parse_block(TextToolDialect::BracketTag, r#"{"arguments": {"path": "a"}}"#, &tools());
    assert_eq!(calls[0].name, "");
    assert!(calls[0].arguments.as_ref().unwrap_err().starts_with("the tool call names no tool"));

    let calls = parse_block(TextToolDialect::BracketTag, r#"please call "name": "write" now"#, &tools());
    assert_eq!(calls[0].name, "write");
    assert!(calls[0].arguments.as_ref().unwrap_err().starts_with("the tool call is not valid JSON"));
}

#[test]
fn xml_invokes_follow_the_schema_types() {
    let body = "\n<invoke name=\"write\">\n<parameter name=\"path\">notes/2024.md</parameter>\n\
        <parameter name=\"content\">\n# 42\n\nline two\n</parameter>\n<parameter name=\"overwrite\">true</parameter>\n\
        <parameter name=\"tags\">[\"a\", \"b\"]</parameter>\n<parameter name=\"extra\">7</parameter>\n</invoke>\n\
        <invoke name='other'><parameter name=\"q\">cats and dogs</parameter></invoke>\n";
    let calls = parse_block(TextToolDialect::XmlInvoke, body, &tools());
    assert_eq!(
        calls,
        vec![
            ParsedCall {
                name: "write".into(),
                arguments: Ok(json!({"path": "notes/2024.md", "content": "# 42\n\nline two", "overwrite": true,
                    "tags": ["a", "b"], "extra": 7}))
            },
            ParsedCall { name: "other".into(), arguments: Ok(json!({"q": "cats and dogs"})) },
        ]
    );
}

#[test]
fn an_xml_block_holding_json_is_read_as_json() {
    let calls = parse_block(TextToolDialect::XmlInvoke, r#"{"name": "write", "arguments": {}}"#, &tools());
    assert_eq!(calls, vec![ParsedCall { name: "write".into(), arguments: Ok(json!({})) }]);
}

#[test]
fn a_truncated_invoke() {
    let calls =
        parse_block(TextToolDialect::XmlInvoke, "<invoke name=\"write\"><parameter name=\"path\">a.md", &tools());
    assert_eq!(calls, vec![ParsedCall { name: "write".into(), arguments: Ok(json!({"path": "a.md"})) }]);
}
