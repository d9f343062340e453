use serde_json::{json, Value};

use super::JsonSchema;

/// The errors of `value` against `schema`, each as `at: message`.
fn errors(schema: Value, value: Value) -> Vec<String> {
    JsonSchema::new(&schema).unwrap().errors(&value).into_iter().map(|e| format!("{}: {}", e.at, e.message)).collect()
}

fn fits(schema: Value, value: Value) -> bool {
    errors(schema, value).is_empty()
}

#[test]
fn types_required_and_properties_say_where_and_what() {
    let schema = json!({
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}},
        "required": ["path"],
        "additionalProperties": false
    });
    assert!(fits(schema.clone(), json!({"path": "a.md", "limit": 3})));
    assert!(fits(schema.clone(), json!({"path": "a.md", "limit": 3.0})), "3.0 is an integer");
    assert_eq!(errors(schema.clone(), json!({"path": 42})), ["/path: 42 is not of type \"string\""]);
    assert_eq!(errors(schema.clone(), json!({})), [": \"path\" is a required property"]);
    assert_eq!(errors(schema.clone(), json!({"path": "a", "limit": 2.5})), ["/limit: 2.5 is not of type \"integer\""]);
    assert_eq!(errors(schema.clone(), json!({"path": "a", "limit": 0})), ["/limit: 0 is less than the minimum of 1"]);
    assert_eq!(
        errors(schema.clone(), json!({"path": "a", "limit": 51})),
        ["/limit: 51 is greater than the maximum of 50"]
    );
    assert_eq!(
        errors(schema.clone(), json!({"path": "a", "x": 1, "y": 2})),
        [": Additional properties are not allowed ('x', 'y' were unexpected)"]
    );
    assert_eq!(errors(schema, json!([])), [": [] is not of type \"object\""]);
    assert_eq!(errors(json!({"type": ["string", "null"]}), json!(1)), [": 1 is not of type \"string\", \"null\""]);
}

#[test]
fn enums_consts_strings_and_numbers() {
    assert_eq!(
        errors(json!({"enum": ["ask", "agent"]}), json!("plan")),
        [": \"plan\" is not one of [\"ask\",\"agent\"]"]
    );
    assert!(fits(json!({"enum": [1, "x"]}), json!(1.0)));
    assert_eq!(errors(json!({"const": "a"}), json!("b")), [": \"a\" was expected"]);
    let text = json!({"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"});
    assert_eq!(errors(text.clone(), json!("a")), [": \"a\" is shorter than 2 characters"]);
    assert_eq!(errors(text.clone(), json!("abcd")), [": \"abcd\" is longer than 3 characters"]);
    assert_eq!(errors(text.clone(), json!("AB")), [": \"AB\" does not match \"^[a-z]+$\""]);
    assert!(fits(text, json!("ab")));
    assert!(fits(json!({"type": "string", "minLength": 2}), json!("日本")), "characters, not bytes");
    // A pattern Rust's regex cannot read is not checked, rather than refusing every value.
    assert!(fits(json!({"pattern": "^(?!x).*$"}), json!("xyz")));
    assert_eq!(errors(json!({"exclusiveMinimum": 0}), json!(0)), [": 0 is less than or equal to the minimum of 0"]);
    assert_eq!(errors(json!({"multipleOf": 0.5}), json!(1.25)), [": 1.25 is not a multiple of 0.5"]);
    assert!(fits(json!({"multipleOf": 0.1}), json!(0.3)), "floating point is forgiven");
}

#[test]
fn arrays_items_and_tuples() {
    let list = json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2, "uniqueItems": true});
    assert_eq!(errors(list.clone(), json!(["a", 2])), ["/1: 2 is not of type \"string\""]);
    assert_eq!(errors(list.clone(), json!([])), [": [] has fewer than 1 items"]);
    assert_eq!(errors(list.clone(), json!(["a", "b", "c"])), [": [\"a\",\"b\",\"c\"] has more than 2 items"]);
    assert_eq!(errors(list, json!(["a", "a"])), [": [\"a\",\"a\"] has non-unique elements"]);
    let tuple = json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false});
    assert!(fits(tuple.clone(), json!(["a", 1])));
    assert_eq!(errors(tuple, json!(["a", 1, true])), ["/2: true is not allowed here"]);
    let draft7 = json!({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}});
    assert_eq!(errors(draft7, json!(["a", "b"])), ["/1: \"b\" is not of type \"integer\""]);
}

#[test]
fn combinators_and_refs_as_schemars_and_pydantic_write_them() {
    // schemars: an enum with data is a oneOf of objects; nested types are $defs behind $ref.
    let schema = json!({
        "type": "object",
        "properties": {
            "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
            "mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]}
        },
        "$defs": {
            "Edit": {
                "oneOf": [
                    {"type": "object", "properties": {"replace": {"type": "string"}}, "required": ["replace"], "additionalProperties": false},
                    {"type": "object", "properties": {"append": {"type": "string"}}, "required": ["append"], "additionalProperties": false}
                ]
            },
            "Mode": {"type": "string", "enum": ["fast", "careful"]}
        }
    });
    assert!(fits(schema.clone(), json!({"edits": [{"replace": "x"}, {"append": "y"}], "mode": null})));
    assert!(fits(schema.clone(), json!({"mode": "fast"})));
    let wrong = errors(schema.clone(), json!({"edits": [{"replace": 1}]}));
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].starts_with(
            "/edits/0: {\"replace\":1} is not valid under any of the schemas listed in the 'oneOf' keyword"
        ) && wrong[0].contains("closest: at /edits/0/replace: 1 is not of type \"string\""),
        "{wrong:?}"
    );
    let mode = errors(schema, json!({"mode": "slow"}));
    assert!(
        mode[0].starts_with("/mode: \"slow\" is not valid under any of the schemas listed in the 'anyOf'"),
        "{mode:?}"
    );
    assert!(mode[0].contains("is not one of [\"fast\",\"careful\"]"), "{mode:?}");

    let both = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
    assert_eq!(
        errors(both, json!(1)),
        [": 1 is valid under more than one of the schemas listed in the 'oneOf' keyword"]
    );
    assert_eq!(
        errors(json!({"allOf": [{"minimum": 1}, {"maximum": 2}]}), json!(3)),
        [": 3 is greater than the maximum of 2"]
    );
    assert_eq!(
        errors(json!({"not": {"type": "string"}}), json!("a")),
        [": \"a\" should not be valid under {\"type\":\"string\"}"]
    );
    // draft 7's definitions, and the root itself.
    let tree = json!({"type": "object", "properties": {"child": {"$ref": "#"}, "name": {"$ref": "#/definitions/Name"}}, "definitions": {"Name": {"type": "string"}}});
    assert_eq!(
        errors(tree, json!({"child": {"child": {"name": 1}}})),
        ["/child/child/name: 1 is not of type \"string\""]
    );
}

#[test]
fn a_ref_cycle_that_never_reaches_a_value_is_an_error_not_a_hang() {
    let schema = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    let found = errors(schema, json!(1));
    assert_eq!(found, [": the schema's $ref never reaches a definition (a cycle)"]);
}

#[test]
fn unknown_keywords_and_remote_refs_are_not_checked_and_broken_schemas_are_refused() {
    assert!(fits(json!({"format": "email", "if": {"type": "string"}, "then": false}), json!("not an email")));
    assert!(fits(json!({"$ref": "https://example.com/schema.json"}), json!(1)));
    assert!(fits(json!(true), json!({"anything": 1})));
    assert_eq!(errors(json!(false), json!(1)), [": 1 is not allowed here"]);
    assert!(fits(json!({"properties": {"a/b": {"type": "string"}}}), json!({"a/b": "x"})));
    assert_eq!(
        errors(json!({"properties": {"a/b": {"type": "string"}}}), json!({"a/b": 1})),
        ["/a~1b: 1 is not of type \"string\""]
    );
    for broken in [
        json!("string"),
        json!({"required": "path"}),
        json!({"properties": {"a": 3}}),
        json!({"anyOf": []}),
        json!({"minLength": -1}),
    ] {
        assert!(JsonSchema::new(&broken).is_err(), "{broken}");
    }
    let message = JsonSchema::new(&json!({"properties": {"a": 3}})).unwrap_err();
    assert_eq!(message, "#/properties/a is 3, not a schema (an object or a boolean)");
}
