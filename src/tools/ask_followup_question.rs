//! `ask_followup_question`: the model asks the user, and waits for the answer.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::{AgentEvent, Question};

pub struct AskFollowupQuestion;

#[derive(Deserialize)]
struct Args {
    question: String,
    #[serde(default)]
    suggestions: Vec<String>,
}

#[async_trait(?Send)]
impl Tool for AskFollowupQuestion {
    fn name(&self) -> &'static str {
        "ask_followup_question"
    }

    fn description(&self) -> &str {
        "Ask the user a question when you cannot go on without their answer (which of two notes, what \
         they meant). Offer 2-4 short suggested answers. Do not ask what you can find out with the tools."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "question": {"type": "string", "minLength": 1},
                "suggestions": {"type": "array", "items": {"type": "string"}, "maxItems": 6}
            },
            "required": ["question"],
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

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
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
