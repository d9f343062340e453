//! `elicitation/create`: a server asks the user for a few values while its tool runs (form
//! mode: a flat schema of text, numbers, yes/no and choices becomes a form's fields) or to open
//! a page (URL mode: a sign-in, a payment, a secret that must not pass through this client);
//! the user's answer becomes the reply.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::protocol::{FieldInput, FormAction, FormAnswer, FormField, FormOption, FormPage, FormRequest, TextFormat};

/// The method by which a server asks for a form.
pub(crate) const FORM_METHOD: &str = "elicitation/create";

/// The error code of a call that needs the user to open a page first
/// (`URLElicitationRequiredError`); its `data.elicitations` are the pages.
pub(crate) const URL_REQUIRED: i64 = -32042;

/// What a server asks the user: its message, and the form's fields or the page to open.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    pub message: String,
    pub fields: Vec<FormField>,
    pub page: Option<FormPage>,
}

impl Elicitation {
    /// The form to show for it: `id` names it in the task, `server` is who asks.
    pub fn into_form(self, id: String, server: String) -> FormRequest {
        FormRequest { id, server, message: self.message, fields: self.fields, page: self.page, subtask: None }
    }
}

/// An `elicitation/create` request's `params`, a form's fields in `order` (the server's, as
/// [`field_orders`] read it; others after, by name); the error says what this client cannot
/// show (another mode, a nested schema, an address that is not a web page).
pub fn read_request(params: &Value, order: &[String]) -> Result<Elicitation, String> {
    let message = params.get("message").and_then(Value::as_str).unwrap_or_default().to_string();
    match params.get("mode").and_then(Value::as_str) {
        None | Some("form") => {}
        Some("url") => {
            let url = params.get("url").and_then(Value::as_str).ok_or("url is missing")?;
            return Ok(Elicitation { message, fields: Vec::new(), page: Some(FormPage::parse(url)?) });
        }
        Some(mode) => return Err(format!("elicitation mode {mode:?} is not supported by this client")),
    }
    let schema = params.get("requestedSchema").ok_or("requestedSchema is missing")?;
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut fields = Vec::new();
    for (name, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let input =
            field_input(property).ok_or_else(|| format!("field {name:?} is not a kind this client can show"))?;
        let text = |key: &str| property.get(key).and_then(Value::as_str).unwrap_or_default().trim().to_string();
        let title = text("title");
        fields.push(FormField {
            name: name.clone(),
            label: if title.is_empty() { name.clone() } else { title },
            description: text("description"),
            required: required.contains(&name.as_str()),
            input,
        });
    }
    fields.sort_by_key(|field| order.iter().position(|name| *name == field.name).unwrap_or(usize::MAX));
    Ok(Elicitation { message, fields, page: None })
}

/// For each message in `text` (one, or a batch), the keys of `params.requestedSchema.properties`
/// in the order they are written; empty where there are none.
pub(crate) fn field_orders(text: &str) -> Vec<Vec<String>> {
    #[derive(Deserialize, Default)]
    struct Message {
        #[serde(default)]
        params: Option<Params>,
    }
    #[derive(Deserialize, Default)]
    struct Params {
        #[serde(default, rename = "requestedSchema")]
        schema: Option<Schema>,
    }
    #[derive(Deserialize, Default)]
    struct Schema {
        #[serde(default)]
        properties: Keys,
    }
    let order = |m: Message| m.params.and_then(|p| p.schema).map(|s| s.properties.0).unwrap_or_default();
    if text.trim_start().starts_with('[') {
        let all: Vec<Message> = serde_json::from_str(text).unwrap_or_default();
        all.into_iter().map(order).collect()
    } else {
        vec![serde_json::from_str(text).map(order).unwrap_or_default()]
    }
}

/// A JSON object's keys in order (nothing, for any other value).
#[derive(Default)]
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Keys, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        deserializer.deserialize_map(KeysVisitor)
    }
}

/// The reply's `result` for `answer` to `asked`: a page's acceptance carries no content.
pub fn reply(asked: &Elicitation, answer: &FormAnswer) -> Value {
    match (answer.action, &answer.content) {
        (FormAction::Accept, _) if asked.page.is_some() => json!({ "action": "accept" }),
        (FormAction::Accept, content) => json!({ "action": "accept", "content": content.clone().unwrap_or_default() }),
        (FormAction::Decline, _) => json!({ "action": "decline" }),
        (FormAction::Cancel, _) => json!({ "action": "cancel" }),
    }
}

/// A property of the flat schema elicitation allows, as a field's input; `None` for anything
/// else.
fn field_input(property: &Value) -> Option<FieldInput> {
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    let count = |key: &str| property.get(key).and_then(Value::as_u64).map(|n| n.min(u32::MAX as u64) as u32);
    match property.get("type").and_then(Value::as_str)? {
        "string" => {
            let default = property.get("default").and_then(Value::as_str).map(str::to_string);
            if let Some(options) = options(property) {
                return Some(FieldInput::Choice { options, default });
            }
            let format = match property.get("format").and_then(Value::as_str) {
                None => TextFormat::Plain,
                Some("email") => TextFormat::Email,
                Some("uri") => TextFormat::Uri,
                Some("date") => TextFormat::Date,
                Some("date-time") => TextFormat::DateTime,
                Some(_) => return None,
            };
            Some(FieldInput::Text { format, min_length: count("minLength"), max_length: count("maxLength"), default })
        }
        kind @ ("number" | "integer") => Some(FieldInput::Number {
            integer: kind == "integer",
            minimum: number("minimum"),
            maximum: number("maximum"),
            default: number("default"),
        }),
        "boolean" => {
            Some(FieldInput::Toggle { default: property.get("default").and_then(Value::as_bool) == Some(true) })
        }
        "array" => {
            let options = options(property.get("items")?)?;
            let default = property.get("default").and_then(Value::as_array).into_iter().flatten();
            let default = default.filter_map(Value::as_str).map(str::to_string).collect();
            Some(FieldInput::Choices { options, min_items: count("minItems"), max_items: count("maxItems"), default })
        }
        _ => None,
    }
}

/// The choices a string schema offers: `enum` (named by `enumNames`, the older form, if
/// given), or `oneOf` / `anyOf` of `{const, title}`.
fn options(schema: &Value) -> Option<Vec<FormOption>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        let options = values.iter().enumerate().map(|(i, value)| {
            let value = value.as_str()?.to_string();
            let label =
                names.and_then(|n| n.get(i)).and_then(Value::as_str).map_or_else(|| value.clone(), str::to_string);
            Some(FormOption { value, label })
        });
        return options.collect();
    }
    let titled = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    titled
        .iter()
        .map(|option| {
            let value = option.get("const")?.as_str()?.to_string();
            let label = option.get("title").and_then(Value::as_str).map_or_else(|| value.clone(), str::to_string);
            Some(FormOption { value, label })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_the_spec_allows_becomes_a_field() {
        let params = json!({
            "message": "Tell us about you",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "title": "Name", "description": "Your full name", "maxLength": 40},
                    "email": {"type": "string", "format": "email"},
                    "age": {"type": "integer", "minimum": 1, "maximum": 120, "default": 42},
                    "ok": {"type": "boolean", "default": true},
                    "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}], "default": "h1"},
                    "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
                    "fish": {"type": "array", "minItems": 1, "items": {"anyOf": [{"const": "f1", "title": "Tuna"}]}, "default": ["f1"]},
                    "tools": {"type": "array", "items": {"type": "string", "enum": ["Guitar", "Piano"]}}
                },
                "required": ["name", "email"]
            }
        });
        let Elicitation { message, fields, page } = read_request(&params, &[]).unwrap();
        assert_eq!((message.as_str(), page), ("Tell us about you", None));
        let by = |name: &str| fields.iter().find(|f| f.name == name).unwrap();
        assert_eq!(
            (by("name").label.as_str(), by("name").description.as_str(), by("name").required),
            ("Name", "Your full name", true)
        );
        assert!(matches!(by("name").input, FieldInput::Text { format: TextFormat::Plain, max_length: Some(40), .. }));
        assert!(matches!(by("email").input, FieldInput::Text { format: TextFormat::Email, .. }));
        assert_eq!(
            by("age").input,
            FieldInput::Number { integer: true, minimum: Some(1.0), maximum: Some(120.0), default: Some(42.0) }
        );
        assert_eq!(by("ok").input, FieldInput::Toggle { default: true });
        let option = |value: &str, label: &str| FormOption { value: value.into(), label: label.into() };
        assert_eq!(
            by("hero").input,
            FieldInput::Choice { options: vec![option("h1", "Superman")], default: Some("h1".into()) }
        );
        assert_eq!(
            by("legacy").input,
            FieldInput::Choice { options: vec![option("a", "Alpha"), option("b", "Beta")], default: None }
        );
        assert_eq!(
            by("fish").input,
            FieldInput::Choices {
                options: vec![option("f1", "Tuna")],
                min_items: Some(1),
                max_items: None,
                default: vec!["f1".into()]
            }
        );
        assert!(matches!(&by("tools").input, FieldInput::Choices { options, .. } if options.len() == 2));
    }

    #[test]
    fn what_a_form_cannot_show_is_refused() {
        let nested =
            json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"a": {"type": "object"}}}});
        assert_eq!(read_request(&nested, &[]).unwrap_err(), "field \"a\" is not a kind this client can show");
        let other = json!({"mode": "voice", "message": "m"});
        assert_eq!(
            read_request(&other, &[]).unwrap_err(),
            "elicitation mode \"voice\" is not supported by this client"
        );
        let javascript = json!({"mode": "url", "message": "m", "url": "javascript:alert(1)", "elicitationId": "e"});
        assert_eq!(read_request(&javascript, &[]).unwrap_err(), "the page's address is not a URL");
    }

    #[test]
    fn a_page_to_open_is_asked_with_its_host_and_accepted_without_content() {
        let params =
            json!({"mode": "url", "message": "Pay here", "url": "https://pay.example.com/c/1", "elicitationId": "e"});
        let asked = read_request(&params, &[]).unwrap();
        let page = FormPage { url: "https://pay.example.com/c/1".into(), host: "pay.example.com".into() };
        assert_eq!(asked, Elicitation { message: "Pay here".into(), fields: Vec::new(), page: Some(page) });
        let accepted = FormAnswer { action: FormAction::Accept, content: Some(Default::default()) };
        assert_eq!(reply(&asked, &accepted), json!({"action": "accept"}));
        assert_eq!(reply(&asked, &FormAnswer::cancel()), json!({"action": "cancel"}));
    }

    #[test]
    fn answers_become_replies() {
        let accepted = FormAnswer { action: FormAction::Accept, content: json!({"name": "Ada"}).as_object().cloned() };
        let form = Elicitation { message: "m".into(), fields: Vec::new(), page: None };
        assert_eq!(reply(&form, &accepted), json!({"action": "accept", "content": {"name": "Ada"}}));
        let declined = FormAnswer { action: FormAction::Decline, content: None };
        assert_eq!(reply(&form, &declined), json!({"action": "decline"}));
        assert_eq!(reply(&form, &FormAnswer::cancel()), json!({"action": "cancel"}));
    }
}
