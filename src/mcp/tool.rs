//! An MCP server's tool as the agent's: named `mcp__<server>__<tool>`, with the schema the
//! server sent, run through the same pipeline as every built-in tool (validation against
//! that schema, approval in the `mcp` category, audit log, externalization).

use std::cell::Cell;
use std::rc::Rc;

use async_trait::async_trait;
use serde_json::Value;

use super::resources::media_block;
use super::{
    ClientFeatures, Elicitation, McpClient, McpToolInfo, Progress, ResourceBody, SamplingOutcome, SamplingRequest,
};
use crate::pipeline::ask_user;
use crate::protocol::{AgentEvent, ApprovalCategory, ApprovalDecision, ApprovalRequest, ChangePreview, FormAnswer};
use crate::tools::{
    DynTool, ParsedCall, PathUse, PlannedCall, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput,
};

/// The approval's `tool` when a server asks for the task's model: the protocol's method.
pub const SAMPLING_APPROVAL: &str = "sampling/createMessage";

/// The most requests for the model one call's server gets answered: a server (or one whose
/// calls run without asking) cannot spend the user's tokens without end.
const MAX_SAMPLES_PER_CALL: u32 = 10;

/// The least time between two progress reports shown for a call.
const PROGRESS_EVERY_MS: u64 = 250;

/// The longest tool name providers accept.
const MAX_NAME: usize = 64;

/// One tool of one connected server.
pub struct McpTool {
    client: Rc<McpClient>,
    /// The name the model calls it by.
    name: String,
    /// The server's name for it.
    remote: String,
    description: String,
    schema: Value,
    /// The server marks it read-only and the user trusts the server's hints.
    trusted_read_only: bool,
}

impl McpTool {
    /// `info` from `client`'s server; `trust_read_only` is the user's setting for the server.
    pub fn new(client: Rc<McpClient>, info: &McpToolInfo, trust_read_only: bool) -> McpTool {
        let server = client.server_name().to_string();
        let name = tool_name(&server, &info.name);
        let about = info.description.clone().or_else(|| info.title.clone()).unwrap_or_default();
        let description = format!("{about}\n(Tool `{}` of the MCP server \"{server}\", outside the vault.)", info.name);
        let mut schema = info.input_schema.clone();
        // Providers require an object schema; a server that sent none takes no arguments.
        if !schema.is_object() || schema.get("type").is_none() {
            schema = serde_json::json!({ "type": "object", "properties": {} });
        }
        McpTool {
            client,
            name,
            remote: info.name.clone(),
            description: description.trim_start().to_string(),
            schema,
            trusted_read_only: trust_read_only && info.read_only(),
        }
    }

    /// The server's name for the tool.
    pub fn remote_name(&self) -> &str {
        &self.remote
    }
}

/// `mcp__<server>__<tool>`, with characters providers refuse replaced by `_`, cut to 64.
pub fn tool_name(server: &str, tool: &str) -> String {
    let clean: String =
        tool.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    let mut name = format!("mcp__{server}__{clean}");
    name.truncate(MAX_NAME);
    name
}

/// The server and tool names in `mcp__<server>__<tool>`; `None` for any other name.
pub fn split_tool_name(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("mcp__")?.split_once("__")
}

impl DynTool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> Value {
        self.schema.clone()
    }
    fn kind(&self) -> ToolKind {
        // A call reaches outside the vault. One the user trusts as read-only may run beside
        // other reads; any other runs alone, as a change would (it has no vault paths, so
        // there is nothing to checkpoint).
        if self.trusted_read_only {
            ToolKind::Read
        } else {
            ToolKind::Write
        }
    }
    fn group(&self) -> ToolGroup {
        ToolGroup::Mcp
    }
    fn category(&self) -> ApprovalCategory {
        if self.trusted_read_only {
            ApprovalCategory::Read
        } else {
            ApprovalCategory::Mcp
        }
    }
    fn externalizable(&self) -> bool {
        true
    }
    fn parse<'a>(&'a self, args: &Value) -> Result<Box<dyn ParsedCall<'a> + 'a>, ToolError> {
        Ok(Box::new(Call { tool: self, args: args.clone() }))
    }
}

/// A call: its arguments go to the server as they are.
struct Call<'a> {
    tool: &'a McpTool,
    args: Value,
}

#[async_trait(?Send)]
impl<'a> ParsedCall<'a> for Call<'a> {
    fn paths(&self) -> Vec<PathUse> {
        Vec::new()
    }
    fn search_query(&self) -> Option<String> {
        None
    }
    fn preapproved(&self) -> bool {
        // Trust is per tool (its category), not per call.
        false
    }
    async fn plan(self: Box<Self>, _ctx: &ToolContext<'_>) -> Result<Box<dyn PlannedCall + 'a>, ToolError> {
        Ok(self)
    }
}

#[async_trait(?Send)]
impl PlannedCall for Call<'_> {
    fn preview(&self) -> Option<ChangePreview> {
        None
    }
    async fn apply(self: Box<Self>, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let tool = self.tool;
        let forms = UserForms { ctx, server: tool.client.server_name(), asked: Cell::new(0), sampled: Cell::new(0) };
        // The server's progress reports go to the card, a few a second at most (a server may
        // send one per item), the last always.
        let last_shown = Cell::new(None::<u64>);
        let report = |progress: &Progress| {
            let now = ctx.clock.now_ms();
            let done = progress.total.is_some_and(|total| progress.progress >= total);
            if !done && last_shown.get().is_some_and(|at| now < at + PROGRESS_EVERY_MS) {
                return;
            }
            last_shown.set(Some(now));
            ctx.host.emit(&AgentEvent::ToolProgress {
                call_id: ctx.call_id.to_string(),
                progress: progress.progress,
                total: progress.total,
                message: progress.message.clone(),
            });
        };
        let outcome = tool.client.call_tool(&tool.remote, self.args, &report, &forms, ctx.cancel).await;
        match outcome {
            Ok(outcome) if outcome.is_error => Err(ToolError::model(format!("{} failed: {}", tool.name, outcome.text))),
            Ok(outcome) => {
                // Images (a screenshot, a chart) and PDFs reach a model that takes them, after
                // the text that names them.
                let mut output = ToolOutput::text(outcome.text);
                for part in &outcome.parts {
                    if let ResourceBody::Bytes(bytes) = &part.body {
                        let mime = part.mime_type.as_deref().unwrap_or_default();
                        output.media.extend(media_block(bytes, mime, ctx.media));
                    }
                }
                if !output.media.is_empty() {
                    output.content.push_str("\n[What the result shows follows this text.]");
                }
                Ok(output)
            }
            Err(crate::Error::Cancelled) => Err(ToolError::Fatal("cancelled".into())),
            // The server wants a (new) sign-in for this call, a step-up for more access say:
            // the chat offers it now, not only when a task's list of servers fails.
            Err(crate::Error::McpSignIn(what)) => {
                let server = tool.client.server_name().to_string();
                let message = format!("MCP server {server}: {what}");
                ctx.host.emit(&AgentEvent::McpSignInNeeded { server, message: message.clone() });
                Err(ToolError::model(message))
            }
            // The server is unreachable or broke the protocol: the model may go on without it.
            Err(e) => Err(ToolError::model(e.to_string())),
        }
    }
}

/// What a call's server asks for: forms, shown to the user through the task's host, and
/// replies from the task's model, each approved by the user first (as a call in the `mcp`
/// category is, unless those run without asking).
struct UserForms<'c, 'a> {
    ctx: &'c ToolContext<'a>,
    server: &'c str,
    /// How many forms this call has asked for, to name each.
    asked: Cell<u32>,
    /// How many replies this call's server has asked for: to name each approval, and to stop
    /// at [`MAX_SAMPLES_PER_CALL`].
    sampled: Cell<u32>,
}

#[async_trait(?Send)]
impl ClientFeatures for UserForms<'_, '_> {
    async fn fill(&self, asked: Elicitation) -> FormAnswer {
        self.asked.set(self.asked.get() + 1);
        let form =
            asked.into_form(format!("form{}-{}", self.ctx.call_index, self.asked.get()), self.server.to_string());
        self.ctx.host.emit(&AgentEvent::FormRequested { form: form.clone() });
        self.ctx.user_time.during(self.ctx.clock, self.ctx.host.fill(&form)).await
    }

    async fn sample(&self, request: SamplingRequest) -> SamplingOutcome {
        let ctx = self.ctx;
        let Some(sampler) = ctx.sampler else {
            return SamplingOutcome::Failed("no model can answer here".into());
        };
        self.sampled.set(self.sampled.get() + 1);
        if self.sampled.get() > MAX_SAMPLES_PER_CALL {
            return SamplingOutcome::Failed(format!(
                "this client answers at most {MAX_SAMPLES_PER_CALL} requests for the model in one tool call"
            ));
        }
        let request = SamplingRequest { max_tokens: sampler.limit(request.max_tokens), ..request };
        if !ctx.policy.borrow().is_automatic(ApprovalCategory::Mcp) {
            let approval = ApprovalRequest {
                id: format!("a{}-sampling{}", ctx.call_index, self.sampled.get()),
                call_id: ctx.call_id.to_string(),
                tool: SAMPLING_APPROVAL.to_string(),
                category: ApprovalCategory::Mcp,
                summary: format!(
                    "The MCP server “{}” asks your model ({}) to write a reply of at most {} tokens to it. \
                     The model sees only the server's messages below, and the reply goes only to the server.",
                    self.server,
                    sampler.model(),
                    request.max_tokens
                ),
                input: request.shown(),
                preview: None,
                subtask: None,
            };
            // Not noted in the task's snapshot: a resumed task cannot rejoin the server's call.
            let answer = ctx.user_time.during(ctx.clock, ctx.host.approve(&approval));
            match ask_user(ctx.host, ctx.cancel, ctx.policy, &approval, async {}, answer).await {
                None => return SamplingOutcome::Failed("the task was stopped".into()),
                Some(ApprovalDecision::Approve | ApprovalDecision::AlwaysAllow) => {}
                Some(ApprovalDecision::Skip | ApprovalDecision::Deny) => return SamplingOutcome::Declined,
            }
        }
        sampler.answer(request, ctx.cancel).await
    }
}
