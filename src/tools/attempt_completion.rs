//! `attempt_completion`: the model says the task is done.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Control, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};

pub struct AttemptCompletion;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The final answer for the user, in Markdown.
    #[schemars(length(min = 1))]
    result: String,
}

#[async_trait(?Send)]
impl Tool for AttemptCompletion {
    const NAME: &'static str = "attempt_completion";
    const KIND: ToolKind = ToolKind::Control;
    const GROUP: ToolGroup = ToolGroup::Agent;
    const EXTERNALIZABLE: bool = false;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "Finish the task: give the user the final result (what you found or changed, with the notes \
         involved as [[wikilinks]]). Call it once the work is done; the task ends with it."
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput {
            content: "The task is complete.".into(),
            control: Some(Control::Complete { result: args.result }),
            ..Default::default()
        })
    }
}
