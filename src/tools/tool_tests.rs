use serde_json::json;

use super::*;
use crate::tools::{builtin_tools, EditFile, SwitchMode};

#[test]
fn a_derived_schema_has_the_fields_descriptions_required_names_and_no_nulls() {
    let schema = DynTool::parameters(&EditFile);
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["path", "old_string", "new_string"]));
    assert_eq!(
        schema["properties"]["path"],
        json!({"type": "string", "description": "Vault-relative path of the note."})
    );
    let replacements = &schema["properties"]["expected_replacements"];
    assert_eq!(replacements["type"], "integer");
    assert_eq!((replacements["minimum"].clone(), replacements["default"].clone()), (json!(1), json!(1)));
    assert_eq!(schema["properties"]["old_string"]["minLength"], 1);
    for key in ["$schema", "title", "description"] {
        assert!(schema.get(key).is_none(), "{key} in {schema}");
    }
}

#[test]
fn no_builtin_schema_admits_null_or_names_a_format() {
    let mut registry = builtin_tools();
    registry.register(std::rc::Rc::new(SwitchMode::new(&crate::mode::Mode::builtin())));
    for tool in registry.iter() {
        let schema = tool.parameters().to_string();
        assert!(!schema.contains("null") && !schema.contains("\"format\""), "{}: {schema}", tool.name());
        assert!(crate::pipeline::JsonSchema::new(&tool.parameters()).is_ok(), "{}", tool.name());
    }
}

#[test]
fn switch_mode_offers_the_tasks_modes_as_choices() {
    let schema = DynTool::parameters(&SwitchMode::new(&crate::mode::Mode::builtin()));
    assert_eq!(schema["properties"]["mode"]["enum"], json!(["ask", "agent"]));
    assert_eq!(schema["required"], json!(["mode"]));
}

#[test]
fn arguments_that_do_not_parse_go_back_to_the_model() {
    let Err(error) = EditFile.parse(&json!({"path": "../outside.md", "old_string": "a", "new_string": "b"})) else {
        panic!("a path outside the vault parses")
    };
    assert!(
        matches!(&error, ToolError::RespondToModel(m) if m.starts_with("invalid arguments for edit_file")),
        "{error:?}"
    );
}
