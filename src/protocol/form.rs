//! A form an MCP server asks the user to fill in while one of its tools runs (`elicitation/create`,
//! form mode) or a page it asks them to open (URL mode), and the user's answer, checked against
//! the form before it is sent.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use super::SubtaskInfo;

/// A form to show the user: who asks, what for, and the fields to fill in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FormRequest {
    /// Unique within the task; the host answers with it.
    pub id: String,
    /// The MCP server asking, by the name the user gave it.
    pub server: String,
    /// What the server says it needs: its own words, shown as plain text.
    pub message: String,
    pub fields: Vec<FormField>,
    /// A page to open instead of fields to fill in (URL mode: a sign-in, a payment, a secret
    /// that must not pass through this client). Accepting means the user agreed to open it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<FormPage>,
    /// The sub-task whose call is asking, when it is not the user's task itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtask: Option<SubtaskInfo>,
}

/// A page a server asks the user to open, checked before anyone sees it: `https` (or `http`
/// to this computer), with a host and no user name or password in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FormPage {
    /// The whole address, shown in full before the user agrees to open it.
    pub url: String,
    /// Where it leads, shown on its own (as written: a look-alike's `xn--` name shows as such).
    pub host: String,
}

impl FormPage {
    /// The page at `url`, or why it may not be offered.
    pub fn parse(url: &str) -> Result<FormPage, String> {
        if url.len() > 2048 || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("the page's address is not a plain URL".into());
        }
        let (scheme, rest) = url.split_once("://").ok_or("the page's address is not a URL")?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if authority.contains('@') {
            return Err("the page's address carries a user name or password".into());
        }
        // The host, without a port: `[::1]:8080` keeps its brackets.
        let host = match authority.strip_prefix('[') {
            Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or_default()),
            None => authority.split(':').next().unwrap_or_default().to_string(),
        }
        .to_ascii_lowercase();
        if host.is_empty() || host == "[]" {
            return Err("the page's address names no host".into());
        }
        let local = matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]");
        match scheme.to_ascii_lowercase().as_str() {
            "https" => {}
            "http" if local => {}
            "http" => return Err(format!("the page at {host} is not served over https")),
            other => return Err(format!("{other}: addresses are not web pages")),
        }
        Ok(FormPage { url: url.to_string(), host })
    }
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FormField {
    /// The key its value is sent under.
    pub name: String,
    /// What the field is called (the schema's title, else its key).
    pub label: String,
    #[serde(default)]
    pub description: String,
    pub required: bool,
    pub input: FieldInput,
}

/// What a field takes, and its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum FieldInput {
    Text {
        format: TextFormat,
        #[serde(default)]
        min_length: Option<u32>,
        #[serde(default)]
        max_length: Option<u32>,
        #[serde(default)]
        default: Option<String>,
    },
    Number {
        integer: bool,
        #[serde(default)]
        minimum: Option<f64>,
        #[serde(default)]
        maximum: Option<f64>,
        #[serde(default)]
        default: Option<f64>,
    },
    Toggle {
        #[serde(default)]
        default: bool,
    },
    /// One of `options`.
    Choice {
        options: Vec<FormOption>,
        #[serde(default)]
        default: Option<String>,
    },
    /// Any of `options`, between `min_items` and `max_items` of them.
    Choices {
        options: Vec<FormOption>,
        #[serde(default)]
        min_items: Option<u32>,
        #[serde(default)]
        max_items: Option<u32>,
        #[serde(default)]
        default: Vec<String>,
    },
}

/// The kind of text a text field takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TextFormat {
    Plain,
    Email,
    Uri,
    Date,
    DateTime,
}

/// A value a choice offers, and what the user reads for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FormOption {
    pub value: String,
    pub label: String,
}

/// What the user did with a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FormAction {
    /// Filled it in and sent it.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing (or nobody could be asked).
    Cancel,
}

/// The user's answer to a form: the values, when they sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct FormAnswer {
    pub action: FormAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "Record<string, unknown> | null")]
    pub content: Option<Map<String, Value>>,
}

impl FormAnswer {
    /// Nobody answered.
    pub fn cancel() -> FormAnswer {
        FormAnswer { action: FormAction::Cancel, content: None }
    }
}

impl FormRequest {
    /// The fields' defaults, as an answer's content (a field without one left out).
    pub fn defaults(&self) -> Map<String, Value> {
        let mut content = Map::new();
        for field in &self.fields {
            let value = match &field.input {
                FieldInput::Text { default, .. } | FieldInput::Choice { default, .. } => {
                    default.clone().map(Value::from)
                }
                FieldInput::Number { integer: true, default: Some(d), .. } if d.fract() == 0.0 => {
                    Some(Value::from(*d as i64))
                }
                FieldInput::Number { default, .. } => default.map(Value::from),
                FieldInput::Toggle { default } => Some(Value::Bool(*default)),
                FieldInput::Choices { default, .. } => (!default.is_empty()).then(|| Value::from(default.clone())),
            };
            if let Some(value) = value {
                content.insert(field.name.clone(), value);
            }
        }
        content
    }

    /// `content` as the form's fields allow it: every required field present, every value of
    /// its field's type and within its limits, no key the form lacks. A blank optional text is
    /// left out. The error names the first field at fault, in the user's words.
    pub fn check(&self, content: &Map<String, Value>) -> Result<Map<String, Value>, String> {
        if let Some(key) = content.keys().find(|key| !self.fields.iter().any(|f| &f.name == *key)) {
            return Err(format!("The form has no field {key:?}."));
        }
        let mut checked = Map::new();
        for field in &self.fields {
            let value = match content.get(&field.name) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s.trim().is_empty() && matches!(field.input, FieldInput::Text { .. }) => None,
                Some(value) => Some(value),
            };
            match value {
                Some(value) => {
                    checked
                        .insert(field.name.clone(), field.check(value).map_err(|e| format!("{}: {e}", field.label))?);
                }
                None if field.required => return Err(format!("{}: fill this in.", field.label)),
                None => {}
            }
        }
        Ok(checked)
    }
}

impl FormField {
    fn check(&self, value: &Value) -> Result<Value, String> {
        match &self.input {
            FieldInput::Text { format, min_length, max_length, .. } => {
                let text = value.as_str().ok_or("expected text.")?;
                let chars = text.chars().count() as u32;
                if min_length.is_some_and(|min| chars < min) {
                    return Err(format!("at least {} characters.", min_length.unwrap_or_default()));
                }
                if max_length.is_some_and(|max| chars > max) {
                    return Err(format!("at most {} characters.", max_length.unwrap_or_default()));
                }
                check_format(*format, text)?;
                Ok(Value::String(text.to_string()))
            }
            FieldInput::Number { integer, minimum, maximum, .. } => {
                let number = value.as_f64().ok_or("expected a number.")?;
                if *integer && number.fract() != 0.0 {
                    return Err("expected a whole number.".into());
                }
                if minimum.is_some_and(|min| number < min) || maximum.is_some_and(|max| number > max) {
                    return Err(match (minimum, maximum) {
                        (Some(min), Some(max)) => format!("a number from {min} to {max}."),
                        (Some(min), None) => format!("a number of at least {min}."),
                        (_, Some(max)) => format!("a number of at most {max}."),
                        _ => unreachable!(),
                    });
                }
                Ok(if *integer { Value::from(number as i64) } else { value.clone() })
            }
            FieldInput::Toggle { .. } => value.as_bool().map(Value::Bool).ok_or_else(|| "expected yes or no.".into()),
            FieldInput::Choice { options, .. } => {
                let text = value.as_str().ok_or("expected one of the choices.")?;
                options
                    .iter()
                    .any(|o| o.value == text)
                    .then(|| value.clone())
                    .ok_or_else(|| "pick one of the choices.".into())
            }
            FieldInput::Choices { options, min_items, max_items, .. } => {
                let picked = value.as_array().ok_or("expected a list of choices.")?;
                let mut seen = Vec::new();
                for item in picked {
                    let text = item.as_str().filter(|t| options.iter().any(|o| o.value == *t));
                    let text = text.ok_or("pick only from the choices.")?;
                    if !seen.contains(&text) {
                        seen.push(text);
                    }
                }
                let count = seen.len() as u32;
                if min_items.is_some_and(|min| count < min) {
                    return Err(format!("pick at least {}.", min_items.unwrap_or_default()));
                }
                if max_items.is_some_and(|max| count > max) {
                    return Err(format!("pick at most {}.", max_items.unwrap_or_default()));
                }
                Ok(Value::Array(seen.into_iter().map(|t| Value::String(t.to_string())).collect()))
            }
        }
    }
}

/// Whether `text` has the shape `format` names (as JSON Schema's formats say, loosely: the
/// server checks again).
fn check_format(format: TextFormat, text: &str) -> Result<(), String> {
    let ok = match format {
        TextFormat::Plain => true,
        TextFormat::Email => {
            let (user, domain) = text.split_once('@').unwrap_or_default();
            !user.is_empty() && domain.contains('.') && !domain.starts_with('.') && !text.contains(char::is_whitespace)
        }
        TextFormat::Uri => {
            let (scheme, rest) = text.split_once(':').unwrap_or_default();
            scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !rest.is_empty()
                && !text.contains(char::is_whitespace)
        }
        TextFormat::Date => is_date(text),
        TextFormat::DateTime => {
            let (date, time) = text.split_once(['T', 't', ' ']).unwrap_or_default();
            is_date(date) && is_time(time)
        }
    };
    if ok {
        return Ok(());
    }
    Err(match format {
        TextFormat::Plain => unreachable!(),
        TextFormat::Email => "expected an email address.".into(),
        TextFormat::Uri => "expected an address such as https://example.com.".into(),
        TextFormat::Date => "expected a date such as 2026-01-31.".into(),
        TextFormat::DateTime => "expected a date and time such as 2026-01-31T09:30:00Z.".into(),
    })
}

/// `YYYY-MM-DD`, a day the month has.
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [year, month, day] = parts.as_slice() else { return false };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !(digits(year, 4) && digits(month, 2) && digits(day, 2)) {
        return false;
    }
    let (year, month, day): (u32, u32, u32) =
        (year.parse().unwrap_or(0), month.parse().unwrap_or(0), day.parse().unwrap_or(0));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `HH:MM[:SS[.fff]]` and a zone (`Z` or `±HH:MM`), as RFC 3339 writes a time.
fn is_time(text: &str) -> bool {
    let zone_at = text.rfind(['Z', 'z', '+', '-']).unwrap_or(text.len());
    let (clock, zone) = text.split_at(zone_at);
    let zone_ok = matches!(zone, "Z" | "z")
        || (zone.len() == 6 && zone.as_bytes()[3] == b':' && zone[1..3].parse::<u32>().is_ok_and(|h| h < 24));
    let clock = clock.split('.').next().unwrap_or_default();
    let parts: Vec<u32> = clock.split(':').map(|p| if p.len() == 2 { p.parse().unwrap_or(99) } else { 99 }).collect();
    let clock_ok = match parts.as_slice() {
        [h, m] | [h, m, _] if *h < 24 && *m < 60 => parts.get(2).is_none_or(|s| *s < 61),
        _ => false,
    };
    zone_ok && clock_ok
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_page_to_open_must_be_a_web_page_whose_host_is_shown() {
        let page = FormPage::parse("https://Pay.Example.com:8443/checkout?id=1").unwrap();
        assert_eq!(page.host, "pay.example.com");
        assert_eq!(FormPage::parse("http://127.0.0.1:9000/done").unwrap().host, "127.0.0.1");
        assert_eq!(FormPage::parse("http://[::1]:9000/").unwrap().host, "[::1]");
        assert_eq!(FormPage::parse("https://xn--pypal-4ve.com/").unwrap().host, "xn--pypal-4ve.com");
        let refused = |url: &str| FormPage::parse(url).unwrap_err();
        assert_eq!(refused("http://example.com/"), "the page at example.com is not served over https");
        assert_eq!(refused("https://user:pw@example.com/"), "the page's address carries a user name or password");
        assert_eq!(refused("obsidian://open?vault=x"), "obsidian: addresses are not web pages");
        assert_eq!(refused("javascript:alert(1)"), "the page's address is not a URL");
        assert_eq!(refused("https:///path"), "the page's address names no host");
        assert_eq!(refused("https://example.com/a b"), "the page's address is not a plain URL");
    }

    fn field(name: &str, required: bool, input: FieldInput) -> FormField {
        FormField { name: name.into(), label: name.into(), description: String::new(), required, input }
    }

    fn form() -> FormRequest {
        let options = |values: &[&str]| {
            values.iter().map(|v| FormOption { value: v.to_string(), label: v.to_uppercase() }).collect()
        };
        FormRequest {
            id: "f1".into(),
            server: "tickets".into(),
            message: "Which project?".into(),
            page: None,
            fields: vec![
                field(
                    "name",
                    true,
                    FieldInput::Text {
                        format: TextFormat::Plain,
                        min_length: Some(2),
                        max_length: Some(5),
                        default: None,
                    },
                ),
                field(
                    "email",
                    false,
                    FieldInput::Text { format: TextFormat::Email, min_length: None, max_length: None, default: None },
                ),
                field(
                    "due",
                    false,
                    FieldInput::Text { format: TextFormat::Date, min_length: None, max_length: None, default: None },
                ),
                field(
                    "count",
                    false,
                    FieldInput::Number { integer: true, minimum: Some(1.0), maximum: Some(10.0), default: None },
                ),
                field("urgent", false, FieldInput::Toggle { default: false }),
                field("team", false, FieldInput::Choice { options: options(&["a", "b"]), default: None }),
                field(
                    "tags",
                    false,
                    FieldInput::Choices {
                        options: options(&["x", "y", "z"]),
                        min_items: Some(1),
                        max_items: Some(2),
                        default: vec![],
                    },
                ),
            ],
            subtask: None,
        }
    }

    fn check(content: Value) -> Result<Value, String> {
        form().check(content.as_object().unwrap()).map(Value::Object)
    }

    #[test]
    fn a_filled_form_passes_with_blank_optional_text_left_out() {
        let checked = check(
            json!({"name": "Ada", "email": " ", "due": "2024-02-29", "count": 3.0, "urgent": true, "team": "b", "tags": ["x", "y", "x"]}),
        );
        assert_eq!(
            checked,
            Ok(
                json!({"name": "Ada", "due": "2024-02-29", "count": 3, "urgent": true, "team": "b", "tags": ["x", "y"]})
            )
        );
    }

    #[test]
    fn each_field_says_what_is_wrong_in_words() {
        assert_eq!(check(json!({})), Err("name: fill this in.".into()));
        assert_eq!(check(json!({"name": "A"})), Err("name: at least 2 characters.".into()));
        assert_eq!(check(json!({"name": "Ada", "email": "ada@"})), Err("email: expected an email address.".into()));
        assert_eq!(
            check(json!({"name": "Ada", "due": "2023-02-29"})),
            Err("due: expected a date such as 2026-01-31.".into())
        );
        assert_eq!(check(json!({"name": "Ada", "count": 2.5})), Err("count: expected a whole number.".into()));
        assert_eq!(check(json!({"name": "Ada", "count": 11})), Err("count: a number from 1 to 10.".into()));
        assert_eq!(check(json!({"name": "Ada", "team": "c"})), Err("team: pick one of the choices.".into()));
        assert_eq!(check(json!({"name": "Ada", "tags": []})), Err("tags: pick at least 1.".into()));
        assert_eq!(check(json!({"name": "Ada", "tags": ["x", "y", "z"]})), Err("tags: pick at most 2.".into()));
        assert_eq!(check(json!({"name": "Ada", "urgent": "yes"})), Err("urgent: expected yes or no.".into()));
        assert_eq!(check(json!({"name": "Ada", "password": "x"})), Err("The form has no field \"password\".".into()));
    }

    #[test]
    fn defaults_make_an_answer_that_needs_only_what_has_none() {
        let mut form = form();
        form.fields[3].input = FieldInput::Number { integer: true, minimum: None, maximum: None, default: Some(30.0) };
        form.fields[5].input = FieldInput::Choice { options: vec![], default: Some("a".into()) };
        assert_eq!(Value::Object(form.defaults()), json!({"count": 30, "urgent": false, "team": "a"}));
        // `name` is required and has no default.
        assert_eq!(form.check(&form.defaults()), Err("name: fill this in.".into()));
    }

    #[test]
    fn formats_are_read_as_json_schema_writes_them() {
        assert!(check_format(TextFormat::Uri, "https://example.com/a").is_ok());
        assert!(check_format(TextFormat::Uri, "example.com").is_err());
        assert!(check_format(TextFormat::DateTime, "2026-01-31T09:30:00Z").is_ok());
        assert!(check_format(TextFormat::DateTime, "2026-01-31T09:30:00.5+01:00").is_ok());
        assert!(check_format(TextFormat::DateTime, "2026-01-31T25:30:00Z").is_err());
        assert!(check_format(TextFormat::DateTime, "2026-01-31").is_err());
    }
}
