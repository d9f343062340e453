//! `switch_mode`: the model moves the task to another mode (more tools, or fewer).

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, Control, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::mode::Mode;
use crate::protocol::ApprovalCategory;

/// Offers the modes of one task, by slug and description.
pub struct SwitchMode {
    modes: Vec<(String, String)>,
    description: String,
}

impl SwitchMode {
    /// A tool that switches among `modes`.
    pub fn new(modes: &[Mode]) -> Self {
        let modes: Vec<(String, String)> = modes.iter().map(|m| (m.slug.clone(), m.name.clone())).collect();
        let list: Vec<String> = modes.iter().map(|(slug, about)| format!("{slug} ({about})")).collect();
        let description = format!(
            "Switch the task to another mode when the work needs tools this mode lacks (or should not have). \
             Modes: {}. Switching is approved like a change.",
            list.join("; ")
        );
        SwitchMode { modes, description }
    }
}

#[derive(Deserialize)]
struct Args {
    mode: String,
    #[serde(default)]
    reason: String,
}

#[async_trait(?Send)]
impl Tool for SwitchMode {
    fn name(&self) -> &'static str {
        "switch_mode"
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        let slugs: Vec<&str> = self.modes.iter().map(|(slug, _)| slug.as_str()).collect();
        json!({
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": slugs, "description": "The mode to switch to."},
                "reason": {"type": "string", "description": "Why, in a sentence, for the user."}
            },
            "required": ["mode"],
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Control
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Agent
    }

    /// A switch can grant the agent the right to change notes, so the user approves it as a
    /// change.
    fn category(&self) -> ApprovalCategory {
        ApprovalCategory::Write
    }

    fn externalizable(&self) -> bool {
        false
    }

    async fn execute(&self, args: Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        if !self.modes.iter().any(|(slug, _)| *slug == args.mode) {
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
