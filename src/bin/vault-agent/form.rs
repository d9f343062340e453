//! A form an MCP server asks for (elicitation), filled in at the terminal a field at a time.

use async_trait::async_trait;
use serde_json::{Map, Value};
use vault_agent::guard::Secrets;
use vault_agent::host::AgentHost;
use vault_agent::mcp::{ClientFeatures, Elicitation};
use vault_agent::protocol::{FieldInput, FormAction, FormAnswer, FormField, FormPage, FormRequest};

use crate::run::TerminalHost;

/// Asks for `form` on the terminal: whether to fill it in, then each field until its value
/// fits. Cancelled without a terminal, or when the input ends.
pub(crate) async fn fill(host: &TerminalHost, form: &FormRequest) -> FormAnswer {
    let asker = match &form.subtask {
        Some(sub) => format!("The MCP server \"{}\", called by sub-task {} ({}),", form.server, sub.task_id, sub.title),
        None => format!("The MCP server \"{}\"", form.server),
    };
    if let Some(page) = &form.page {
        return open_page(host, &asker, &form.message, page).await;
    }
    if !host.interactive() {
        eprintln!("form cancelled (no terminal to fill it in): {asker} asks: {}", form.message);
        return FormAnswer::cancel();
    }
    eprintln!("\n{asker} asks: {}", form.message);
    eprintln!("(What you enter goes to that server, not to the model. Give it no passwords or keys.)");
    match host.prompt("Fill it in? [y]es, [n]o, anything else cancels: ").await.as_deref().map(str::trim) {
        Some("y" | "Y" | "yes") => {}
        Some("n" | "N" | "no") => return FormAnswer { action: FormAction::Decline, content: None },
        _ => return FormAnswer::cancel(),
    }
    let mut content = Map::new();
    for field in &form.fields {
        // Each field is checked alone, so a wrong value is asked for again at once.
        let alone = FormRequest { fields: vec![field.clone()], ..form.clone() };
        loop {
            let Some(line) = host.prompt(&question(field)).await else { return FormAnswer::cancel() };
            let mut value = Map::new();
            if let Some(v) = read(field, line.trim()) {
                value.insert(field.name.clone(), v);
            }
            match Secrets::checked_answer(&alone, &value) {
                Ok(checked) => {
                    content.extend(checked);
                    break;
                }
                Err(e) => eprintln!("  {e}"),
            }
        }
    }
    FormAnswer { action: FormAction::Accept, content: Some(content) }
}

/// Asks whether to open `page` (its host, then its whole address) and opens it in the browser
/// on yes. Cancelled without a terminal, or when the input ends.
async fn open_page(host: &TerminalHost, asker: &str, message: &str, page: &FormPage) -> FormAnswer {
    let shown = format!("{asker} asks you to open a page on {}: {message}\n  {}", page.host, page.url);
    if !host.interactive() {
        eprintln!("page not opened (no terminal to ask): {shown}");
        return FormAnswer::cancel();
    }
    eprintln!("\n{shown}");
    match host.prompt("Open it in your browser? [y]es, [n]o, anything else cancels: ").await.as_deref().map(str::trim) {
        Some("y" | "Y" | "yes") => {
            crate::mcp_login::open(&page.url);
            FormAnswer { action: FormAction::Accept, content: None }
        }
        Some("n" | "N" | "no") => FormAnswer { action: FormAction::Decline, content: None },
        _ => FormAnswer::cancel(),
    }
}

/// The prompt for `field`: its label, description, choices and default.
fn question(field: &FormField) -> String {
    let mut text = field.label.clone();
    if !field.description.is_empty() {
        text.push_str(&format!(" ({})", field.description));
    }
    if !field.required {
        text.push_str(", optional");
    }
    let default = match &field.input {
        FieldInput::Text { default, .. } | FieldInput::Choice { default, .. } => default.clone(),
        FieldInput::Number { default, .. } => default.map(|d| d.to_string()),
        FieldInput::Toggle { default } => Some(if *default { "y" } else { "n" }.to_string()),
        FieldInput::Choices { default, .. } => (!default.is_empty()).then(|| default.join(", ")),
    };
    match &field.input {
        FieldInput::Choice { options, .. } | FieldInput::Choices { options, .. } => {
            for (i, option) in options.iter().enumerate() {
                text.push_str(&format!("\n  {}. {}", i + 1, option.label));
            }
            let hint =
                if matches!(field.input, FieldInput::Choices { .. }) { "numbers, commas between" } else { "a number" };
            text.push_str(&format!("\n  {hint}"));
        }
        FieldInput::Toggle { .. } => text.push_str(" [y/n]"),
        _ => {}
    }
    match default {
        Some(default) => format!("{text} [{default}]: "),
        None => format!("{text}: "),
    }
}

/// What was typed for `field` as its JSON value (the default when nothing was); the form's
/// check says what is wrong with it.
fn read(field: &FormField, line: &str) -> Option<Value> {
    let pick = |options: &[vault_agent::protocol::FormOption], part: &str| {
        let by_number = part.parse::<usize>().ok().and_then(|n| options.get(n.wrapping_sub(1)));
        Value::String(by_number.map_or_else(|| part.to_string(), |o| o.value.clone()))
    };
    match &field.input {
        FieldInput::Text { default, .. } if line.is_empty() => default.clone().map(Value::String),
        FieldInput::Text { .. } => Some(Value::String(line.to_string())),
        FieldInput::Number { default, .. } if line.is_empty() => default.map(Value::from),
        FieldInput::Number { .. } => {
            Some(line.parse::<f64>().map_or_else(|_| Value::String(line.to_string()), Value::from))
        }
        FieldInput::Toggle { default } => Some(match line {
            "" => Value::Bool(*default),
            "y" | "Y" | "yes" => Value::Bool(true),
            "n" | "N" | "no" => Value::Bool(false),
            other => Value::String(other.to_string()),
        }),
        FieldInput::Choice { default, .. } if line.is_empty() => default.clone().map(Value::String),
        FieldInput::Choice { options, .. } => Some(pick(options, line)),
        FieldInput::Choices { default, .. } if line.is_empty() => {
            (!default.is_empty()).then(|| Value::from(default.clone()))
        }
        FieldInput::Choices { options, .. } => Some(Value::Array(
            line.split(',').map(str::trim).filter(|p| !p.is_empty()).map(|p| pick(options, p)).collect(),
        )),
    }
}

/// The forms of one `vault-agent mcp call`, asked on the terminal, or sent with their defaults.
pub(crate) struct TerminalForms {
    pub host: TerminalHost,
    pub server: String,
    /// Send each form with its defaults, without asking (`--accept-defaults`).
    pub accept_defaults: bool,
}

#[async_trait(?Send)]
impl ClientFeatures for TerminalForms {
    async fn fill(&self, asked: Elicitation) -> FormAnswer {
        let form = asked.into_form("form".into(), self.server.clone());
        // A page is never opened without asking.
        if !self.accept_defaults || form.page.is_some() {
            return AgentHost::fill(&self.host, &form).await;
        }
        match form.check(&form.defaults()) {
            Ok(content) => {
                eprintln!("form from \"{}\" sent with its defaults: {}", form.server, Value::Object(content.clone()));
                FormAnswer { action: FormAction::Accept, content: Some(content) }
            }
            Err(e) => {
                eprintln!("form from \"{}\" cancelled: {e} (it has no default)", form.server);
                FormAnswer::cancel()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use vault_agent::protocol::{FormOption, TextFormat};

    use super::*;

    fn field(input: FieldInput) -> FormField {
        FormField { name: "f".into(), label: "Pet".into(), description: "Your pet".into(), required: false, input }
    }

    fn pets() -> Vec<FormOption> {
        ["cat", "dog"].iter().map(|v| FormOption { value: format!("pet-{v}"), label: v.to_uppercase() }).collect()
    }

    #[test]
    fn a_question_names_the_field_its_choices_and_its_default() {
        let choice = field(FieldInput::Choice { options: pets(), default: Some("pet-cat".into()) });
        assert_eq!(question(&choice), "Pet (Your pet), optional\n  1. CAT\n  2. DOG\n  a number [pet-cat]: ");
        let toggle = FormField { required: true, ..field(FieldInput::Toggle { default: true }) };
        assert_eq!(question(&toggle), "Pet (Your pet) [y/n] [y]: ");
    }

    #[test]
    fn typed_lines_become_values_for_the_forms_check() {
        let choices = field(FieldInput::Choices { options: pets(), min_items: None, max_items: None, default: vec![] });
        assert_eq!(read(&choices, "2, pet-cat"), Some(json!(["pet-dog", "pet-cat"])));
        assert_eq!(read(&choices, ""), None);
        let number = field(FieldInput::Number { integer: true, minimum: None, maximum: None, default: Some(3.0) });
        assert_eq!(read(&number, ""), Some(json!(3.0)));
        assert_eq!(read(&number, "12"), Some(json!(12.0)));
        // Not a number: the check says so, and the field is asked again.
        assert_eq!(read(&number, "twelve"), Some(json!("twelve")));
        let text =
            field(FieldInput::Text { format: TextFormat::Plain, min_length: None, max_length: None, default: None });
        assert_eq!(read(&text, "Rex"), Some(json!("Rex")));
        assert_eq!(read(&field(FieldInput::Toggle { default: false }), "yes"), Some(json!(true)));
    }
}
