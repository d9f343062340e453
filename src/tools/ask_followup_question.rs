//! `ask_followup_question`: the model asks the user, and waits for the answer.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::{AgentEvent, Question};

pub struct AskFollowupQuestion;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[schemars(length(min = 1))]
    question: String,
    #[serde(default)]
    #[schemars(length(max = 6))]
    suggestions: Vec<String>,
}

#[async_trait(?Send)]
impl Tool for AskFollowupQuestion {
    const NAME: &'static str = "ask_followup_question";
    const KIND: ToolKind = ToolKind::Control;
    const GROUP: ToolGroup = ToolGroup::Agent;
    const EXTERNALIZABLE: bool = false;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "Ask the user a question when you cannot go on without their answer (which of two notes, what \
         they meant). Offer 2-4 short suggested answers. Do not ask what you can find out with the tools."
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let question = Question {
            id: format!("q{}", ctx.call_index),
            question: args.question,
            suggestions: args.suggestions,
            subtask: None,
        };
        ctx.host.emit(&AgentEvent::QuestionAsked { question: question.clone() });
        let answer = crate::cancel::with_cancel(ctx.cancel, ctx.host.ask(&question))
            .await
            .map_err(|_| ToolError::Fatal("cancelled while waiting for the user's answer".into()))?;
        Ok(match answer {
            Some(answer) => ToolOutput::text(format!("The user answered: {answer}")),
            None => {
                ToolOutput::text("The user did not answer. Go on with your best judgement and say what you assumed.")
            }
        })
    }
}
