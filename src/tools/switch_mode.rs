//! `switch_mode`: the model moves the task to another mode (more tools, or fewer).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{args_schema, Control, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::mode::Mode;
use crate::protocol::ApprovalCategory;

/// Offers the modes of one task.
pub struct SwitchMode {
    slugs: Vec<String>,
    description: String,
}

impl SwitchMode {
    /// A tool that switches among `modes`.
    pub fn new(modes: &[Mode]) -> Self {
        let list: Vec<String> = modes.iter().map(|m| format!("{} ({})", m.slug, m.name)).collect();
        let description = format!(
            "Switch the task to another mode when the work needs tools this mode lacks (or should not have). \
             Modes: {}. Switching is approved like a change.",
            list.join("; ")
        );
        SwitchMode { slugs: modes.iter().map(|m| m.slug.clone()).collect(), description }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The mode to switch to.
    mode: String,
    /// Why, in a sentence, for the user.
    #[serde(default)]
    reason: String,
}

#[async_trait(?Send)]
impl Tool for SwitchMode {
    const NAME: &'static str = "switch_mode";
    const KIND: ToolKind = ToolKind::Control;
    const GROUP: ToolGroup = ToolGroup::Agent;
    const EXTERNALIZABLE: bool = false;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        &self.description
    }

    /// The derived schema, with the task's modes as the choices.
    fn parameters(&self) -> Value {
        let mut schema = args_schema::<Args>();
        schema["properties"]["mode"]["enum"] = json!(self.slugs);
        schema
    }

    /// A switch can grant the agent the right to change notes, so the user approves it as a
    /// change.
    fn category(&self) -> ApprovalCategory {
        ApprovalCategory::Write
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if !self.slugs.contains(&args.mode) {
            return Err(ToolError::model(format!("there is no mode {:?}", args.mode)));
        }
        let why = if args.reason.is_empty() { String::new() } else { format!(" ({})", args.reason) };
        Ok(ToolOutput {
            content: format!("Switched to {} mode{why}. The tools of that mode are now available.", args.mode),
            control: Some(Control::SwitchMode { mode: args.mode }),
            ..Default::default()
        })
    }
}
