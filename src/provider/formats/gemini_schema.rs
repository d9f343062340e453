//! A tool's JSON Schema as Gemini's function declarations read it: their OpenAPI subset.
//! Gemini refuses a declaration with a keyword outside it (`Unknown name "additionalProperties"
//! at 'tools[0].function_declarations[0].parameters'`), and MCP servers' schemas hold many
//! (`$schema`, `$ref`, `const`, `oneOf`, type lists). What is dropped only loosens what the
//! model is told: the pipeline still checks every call against the whole schema.

use serde_json::{json, Map, Value};

/// The keywords Gemini's `Schema` has, kept as they are (the structural ones are rewritten
/// below).
const KEPT: [&str; 17] = [
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "propertyOrdering",
    "default",
    "minimum",
    "maximum",
];

/// The formats Gemini reads (others are refused).
const FORMATS: [&str; 6] = ["date-time", "enum", "int32", "int64", "float", "double"];

/// `schema` with only what Gemini reads: `$ref`s replaced by their definitions (one level of
/// `$defs`/`definitions` at the root; a reference to nothing becomes `{}`), `oneOf` read as
/// `anyOf`, `const` as a one-value `enum`, a list of types as its first non-null type (with
/// `nullable` when `null` was one), the first of `examples` as `example`.
pub fn gemini_schema(schema: &Value) -> Value {
    let defs = ["$defs", "definitions"].iter().find_map(|k| schema.get(*k)).cloned().unwrap_or(Value::Null);
    convert(schema, &defs, 0)
}

fn convert(schema: &Value, defs: &Value, depth: usize) -> Value {
    let Some(object) = schema.as_object() else { return json!({}) };
    // A reference is inlined; a cycle stops at a depth no tool's arguments reach.
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or_default();
        return match defs.get(name) {
            Some(target) if depth < 8 => convert(target, defs, depth + 1),
            _ => json!({}),
        };
    }
    let mut out = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "type" => match value {
                Value::Array(types) => {
                    if types.iter().any(|t| t == "null") {
                        out.insert("nullable".into(), json!(true));
                    }
                    if let Some(first) = types.iter().find(|t| *t != "null") {
                        out.insert("type".into(), first.clone());
                    }
                }
                other => {
                    out.insert("type".into(), other.clone());
                }
            },
            "properties" => {
                let properties = value
                    .as_object()
                    .map(|p| p.iter().map(|(name, s)| (name.clone(), convert(s, defs, depth))).collect::<Map<_, _>>())
                    .unwrap_or_default();
                out.insert("properties".into(), Value::Object(properties));
            }
            "items" => {
                let items = match value {
                    Value::Array(list) => list.first().map_or(json!({}), |s| convert(s, defs, depth)),
                    single => convert(single, defs, depth),
                };
                out.insert("items".into(), items);
            }
            "anyOf" | "oneOf" => {
                let choices: Vec<Value> =
                    value.as_array().into_iter().flatten().map(|s| convert(s, defs, depth)).collect();
                out.insert("anyOf".into(), Value::Array(choices));
            }
            "const" if !object.contains_key("enum") => {
                out.insert("enum".into(), json!([value]));
            }
            "examples" => {
                if let Some(first) = value.as_array().and_then(|e| e.first()) {
                    out.entry("example").or_insert_with(|| first.clone());
                }
            }
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {
                out.insert("format".into(), value.clone());
            }
            key if KEPT.contains(&key) => {
                out.insert(key.into(), value.clone());
            }
            _ => {}
        }
    }
    // `required` names only properties that are still there.
    let names: Vec<String> =
        out.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default();
    if let Some(Value::Array(required)) = out.get_mut("required") {
        required.retain(|r| r.as_str().is_some_and(|r| names.iter().any(|n| n == r)));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcp_schema_keeps_only_what_gemini_reads() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "path": {"type": "string", "format": "uri", "description": "Where."},
                "mode": {"const": "fast"},
                "limit": {"type": ["integer", "null"], "minimum": 1, "examples": [10]},
                "tags": {"type": "array", "items": {"type": "string", "propertyNames": {"pattern": "x"}}},
                "target": {"$ref": "#/$defs/Target"},
                "either": {"oneOf": [{"type": "string"}, {"type": "number", "exclusiveMinimum": 0}]}
            },
            "required": ["path", "ghost"],
            "$defs": {"Target": {"type": "object", "properties": {"id": {"type": "string"}},
                "additionalProperties": false}}
        });
        assert_eq!(
            gemini_schema(&schema),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Where."},
                    "mode": {"enum": ["fast"]},
                    "limit": {"type": "integer", "nullable": true, "minimum": 1, "example": 10},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "target": {"type": "object", "properties": {"id": {"type": "string"}}},
                    "either": {"anyOf": [{"type": "string"}, {"type": "number"}]}
                },
                "required": ["path"]
            })
        );
    }

    /// Every built-in tool keeps its arguments, their descriptions and what is required.
    #[test]
    fn the_builtin_tools_keep_their_arguments() {
        for tool in crate::tools::builtin_tools().iter() {
            let schema = tool.parameters();
            let gemini = gemini_schema(&schema);
            assert_eq!(
                gemini["properties"].as_object().map(|p| p.len()),
                schema["properties"].as_object().map(|p| p.len()),
                "{}",
                tool.name()
            );
            assert_eq!(gemini.get("required"), schema.get("required"), "{}", tool.name());
            assert!(!gemini.to_string().contains("additionalProperties"), "{}", tool.name());
        }
    }

    #[test]
    fn a_reference_to_itself_ends() {
        let schema = json!({"$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
            "type": "object", "properties": {"head": {"$ref": "#/$defs/Node"}}});
        let converted = gemini_schema(&schema).to_string();
        assert!(converted.matches("\"next\"").count() <= 9, "{converted}");
    }
}
