//! `attempt_completion`: the model says the task is done.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, Control, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};

pub struct AttemptCompletion;

#[derive(Deserialize)]
struct Args {
    result: String,
}

#[async_trait(?Send)]
impl Tool for AttemptCompletion {
    fn name(&self) -> &'static str {
        "attempt_completion"
    }

    fn description(&self) -> &str {
        "Finish the task: give the user the final result (what you found or changed, with the notes \
         involved as [[wikilinks]]). Call it once the work is done; the task ends with it."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"result": {"type": "string", "minLength": 1, "description": "The final answer for the user, in Markdown."}},
            "required": ["result"],
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Control
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Agent
    }

    fn externalizable(&self) -> bool {
        false
    }

    async fn execute(&self, args: Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        Ok(ToolOutput {
            content: "The task is complete.".into(),
            control: Some(Control::Complete { result: args.result }),
            ..Default::default()
        })
    }
}
