//! Stage 1: tool arguments against the tool's JSON Schema.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use super::json_schema::JsonSchema;
use crate::tools::DynTool;

/// Compiles each tool's schema once and checks arguments against it, with messages that say
/// where the arguments are wrong and what was expected.
#[derive(Default)]
pub struct SchemaValidator {
    compiled: RefCell<HashMap<String, Rc<Compiled>>>,
}

enum Compiled {
    Ready(JsonSchema),
    /// The tool's own schema is broken: every call fails with this message.
    Broken(String),
}

impl SchemaValidator {
    /// A validator with an empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// `Ok` when `args` fit the tool's schema; otherwise a message for the model.
    pub fn check(&self, tool: &dyn DynTool, args: &Value) -> Result<(), String> {
        if let Value::String(raw) = args {
            // The assembler keeps arguments that were not JSON as a string.
            let shown: String = raw.chars().take(200).collect();
            return Err(format!(
                "the arguments for {} were not valid JSON (the response may have been cut off). Send one JSON \
                 object matching the tool's schema. Received: {shown}",
                tool.name()
            ));
        }
        let compiled = self.compiled(tool);
        let validator = match &*compiled {
            Compiled::Ready(v) => v,
            Compiled::Broken(message) => return Err(message.clone()),
        };
        let problems: Vec<String> = validator
            .errors(args)
            .into_iter()
            .take(5)
            .map(
                |error| if error.at.is_empty() { error.message } else { format!("at {}: {}", error.at, error.message) },
            )
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "invalid arguments for {}: {}. Expected arguments matching: {}",
                tool.name(),
                problems.join("; "),
                tool.parameters()
            ))
        }
    }

    fn compiled(&self, tool: &dyn DynTool) -> Rc<Compiled> {
        if let Some(found) = self.compiled.borrow().get(tool.name()) {
            return found.clone();
        }
        let compiled = Rc::new(match JsonSchema::new(&tool.parameters()) {
            Ok(v) => Compiled::Ready(v),
            Err(e) => Compiled::Broken(format!("the tool {} has an invalid schema: {e}", tool.name())),
        });
        self.compiled.borrow_mut().insert(tool.name().to_string(), compiled.clone());
        compiled
    }
}
