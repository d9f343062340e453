//! Recipes and the fast path, on the task's side.
//!
//! At its start a task whose request matches a recipe with enough net successes
//! ([`FAST_PATH_SUCCESSES`]) takes the fast path: one planning call (a short request of its
//! own: the user's request, the recipe, the schemas of its tools) answers a JSON plan; the plan
//! runs as one turn of the loop — through the same pipeline (validation, approval, checkpoints,
//! audit log), with externalization off and each result cut to [`DIGEST_CHARS`] for the
//! history; then at most two final turns, offered only the recipe's tools and
//! `attempt_completion` (the last with tools off), make the calls that depend on what was read
//! and write the answer. A plan that is not JSON, names a tool that is unknown or not in the
//! mode, or a step that fails, falls back to the normal loop (a `fast_path_fallback` event);
//! the fallback counts against the recipe.
//!
//! At its end a top-level task teaches the store: a completed run's successful calls become a
//! recipe or a success of the matching one (the fast path's recipe when it answered); a run
//! that failed or was denied counts against the recipe its request matches. Undo takes a
//! success back (`pipeline::apply_undo`).

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;

use super::{AgentTask, PendingTurn, RunProgress};
use crate::agent::split_request;
use crate::memory::{Recipe, RecipeStep, RecipeStore, RequestVector, FAST_PATH_SUCCESSES};
use crate::pipeline::{CallOutcome, CallStatus, ToolCall};
use crate::protocol::{
    AgentEvent, ApprovalCategory, ContentBlock, EndReason, ErrorKind, Message, ModelRequest, RecipeUse, Role,
    ToolChoice,
};
use crate::tools::{ToolKind, ATTEMPT_COMPLETION};

/// A plan step's result in the history is cut to this many characters: the final turns get a
/// digest of what was read, not every byte (a long note's beginning; a listing's first lines).
pub(super) const DIGEST_CHARS: usize = 1_500;

/// Model calls the final turns may make after the plan.
const FINAL_TURNS: u32 = 2;

/// The planning call's system prompt.
const PLANNER_SYSTEM: &str =
    "You plan the tool calls of an AI agent that works in a user's Obsidian vault. You answer \
                              with JSON only.";

/// A fast path under way.
pub(super) struct FastPath {
    pub(super) recipe: Recipe,
    /// The tools the final turns are offered.
    pub(super) tools: BTreeSet<String>,
    /// Model calls left to the final turns.
    calls_left: u32,
    /// Whether the plan's turn is still to finish.
    planning: bool,
}

/// The planner's answer.
#[derive(Deserialize)]
struct Plan {
    calls: Vec<PlannedCall>,
}

#[derive(Deserialize)]
struct PlannedCall {
    tool: String,
    #[serde(default = "empty_object")]
    args: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// How the chat names `recipe`.
pub(super) fn recipe_use(recipe: &Recipe) -> RecipeUse {
    RecipeUse {
        id: recipe.id.clone(),
        request: recipe.request.clone(),
        successes: recipe.successes,
        failures: recipe.failures,
    }
}

impl AgentTask {
    /// Takes the fast path if the request matches a recipe that worked often enough: makes
    /// the planning call (step 1, counted in `run`) and returns the plan's turn for the loop
    /// to run. `None`: no fast path (none matched, it is off, or the plan was refused — then
    /// the fallback was announced and the loop starts as usual).
    pub(super) async fn start_fast_path(&mut self, run: &mut RunProgress) -> Option<PendingTurn> {
        if !self.config.fast_path || self.config.depth > 0 {
            return None;
        }
        let vector = self.request_vector().await;
        let store = match RecipeStore::load(&*self.vault).await {
            Ok(store) => store,
            Err(e) => {
                self.host.emit(&AgentEvent::Warning { message: format!("recipes could not be read: {e}") });
                return None;
            }
        };
        let recipe = store.fast_path(self.kind_of_request(), as_request_vector(&vector))?.clone();
        debug_assert!(recipe.net() >= FAST_PATH_SUCCESSES);
        self.host.emit(&AgentEvent::FastPath { recipe: recipe_use(&recipe) });

        let step = run.steps.len() as u32 + 1;
        self.host.emit(&AgentEvent::StepStarted { step });
        let request = self.planner_request(&recipe);
        let turn = match self.within_deadline(self.call_model(&request, false)).await {
            Ok(turn) => turn,
            Err(e) if e.kind == ErrorKind::Cancelled => {
                // The loop sees the cancel and stops; a cancel says nothing about the recipe.
                run.usage += self.cut_short.take();
                return None;
            }
            Err(e) => {
                self.fall_back_from(&recipe, format!("the planning call failed: {e}")).await;
                return None;
            }
        };
        run.usage += turn.usage;
        self.host.emit(&self.step_finished(step, turn.usage, run.usage + self.overhead));
        run.steps.push(turn.step_report(step));
        let calls = match self.parse_plan(&turn.message.text()) {
            Ok(calls) => calls,
            Err(reason) => {
                self.fall_back_from(&recipe, reason).await;
                return None;
            }
        };

        let allowed: BTreeSet<String> = self.pipeline.specs().into_iter().map(|s| s.name).collect();
        let mut tools: BTreeSet<String> =
            recipe.steps.iter().map(|s| s.tool.clone()).filter(|t| allowed.contains(t)).collect();
        if allowed.contains(ATTEMPT_COMPLETION) {
            tools.insert(ATTEMPT_COMPLETION.to_string());
        }
        self.fast = Some(FastPath { recipe, tools, calls_left: FINAL_TURNS, planning: !calls.is_empty() });
        if calls.is_empty() {
            return None;
        }
        // The plan goes into the history as the assistant's calls, so the final turns (and any
        // later task of the conversation) see what ran, as after any turn.
        let content =
            calls.iter().map(|c| ContentBlock::tool_use(c.id.clone(), c.name.clone(), c.input.clone())).collect();
        self.history.push(Message { role: Role::Assistant, content });
        self.pipeline.set_digest(Some(DIGEST_CHARS));
        Some(self.budgeted(calls, run))
    }

    /// The plan's calls, or why the plan is refused: not JSON of the plan's shape, a tool
    /// that does not exist or that the mode does not grant.
    fn parse_plan(&self, answer: &str) -> Result<Vec<ToolCall>, String> {
        // A model may wrap its JSON in a code fence or a sentence: the outermost braces.
        let json = match (answer.find('{'), answer.rfind('}')) {
            (Some(start), Some(end)) if start < end => &answer[start..=end],
            _ => return Err("the plan was not JSON".into()),
        };
        let plan: Plan =
            serde_json::from_str(json).map_err(|e| format!("the plan was not JSON of the plan's shape: {e}"))?;
        let allowed: BTreeSet<String> = self.pipeline.specs().into_iter().map(|s| s.name).collect();
        plan.calls
            .into_iter()
            .enumerate()
            .map(|(i, call)| {
                if self.pipeline.registry().get(&call.tool).is_none() {
                    return Err(format!("the plan names an unknown tool, {}", call.tool));
                }
                if !allowed.contains(&call.tool) {
                    return Err(format!("the plan names {}, which {} mode does not allow", call.tool, self.mode.name));
                }
                Ok(ToolCall { id: format!("plan_{i}"), name: call.tool, input: call.args })
            })
            .collect()
    }

    /// The planning call's request: the user's request, the recipe, and the schemas of the
    /// tools it plans with; no tools (it answers text).
    fn planner_request(&self, recipe: &Recipe) -> ModelRequest {
        let steps: Vec<String> = recipe
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let later = if s.depends_on_results() { " (left for the final turn)" } else { "" };
                format!("{}. {} {}{later}", i + 1, s.tool, s.args)
            })
            .collect();
        let planned: BTreeSet<&str> =
            recipe.steps.iter().filter(|s| !s.depends_on_results()).map(|s| s.tool.as_str()).collect();
        let schemas: Vec<String> = self
            .pipeline
            .specs()
            .into_iter()
            .filter(|s| planned.contains(s.name.as_str()))
            .map(|s| format!("- {}: {}", s.name, s.input_schema))
            .collect();
        let ask = format!(
            "The user's request:\n{request}\n\nA recipe for this kind of request: the tool calls that did it before, \
             with the arguments used then (learned from the request \"{learned}\"; it worked {n} times):\n{steps}\n\n\
             The tools, with the JSON Schema of their arguments:\n{schemas}\n\nAdapt the calls to this request. Answer \
             with JSON only, of this shape: {{\"calls\": [{{\"tool\": \"<name>\", \"args\": {{}}}}]}} — the calls \
             that can be made now, in order. Leave out the calls marked for the final turn (their arguments are \
             written from what the other calls return) and attempt_completion.",
            request = self.request,
            learned = recipe.request,
            n = recipe.successes,
            steps = steps.join("\n"),
            schemas = schemas.join("\n"),
        );
        ModelRequest {
            temperature: self.config.temperature,
            model: self.mode.model.clone(),
            ..ModelRequest::one_shot(PLANNER_SYSTEM, ask, self.config.max_tokens)
        }
    }

    /// After a turn of the fast path: results are externalized again from now on (the plan's
    /// came back cut to a digest), and the final turn is told what is left; a step that failed
    /// falls back to the normal loop.
    /// Ends that stop the task anyway (a denial, a cancel, a guardrail, a fatal error) are left
    /// to the loop.
    pub(super) async fn after_fast_turn(&mut self, outcomes: &[CallOutcome]) {
        let Some(fast) = &mut self.fast else { return };
        if std::mem::take(&mut fast.planning) {
            self.pipeline.set_digest(None);
            let later: Vec<String> = fast
                .recipe
                .steps
                .iter()
                .filter(|s| s.depends_on_results())
                .map(|s| format!("{} {}", s.tool, s.args))
                .collect();
            let note = if later.is_empty() {
                "[Fast path] The calls above ran from a recipe for this kind of request. Answer the user now \
                 (attempt_completion), from what they returned."
                    .to_string()
            } else {
                format!(
                    "[Fast path] The calls above ran from a recipe for this kind of request. Finish the task now: \
                     make the calls left (last time: {}), written from what the calls above returned, and \
                     attempt_completion.",
                    later.join("; ")
                )
            };
            self.pending_note = Some(note);
        }
        let failed = outcomes.iter().enumerate().find(|(_, o)| {
            o.is_error
                && !matches!(
                    o.status,
                    CallStatus::Denied | CallStatus::Cancelled | CallStatus::Guardrail(_) | CallStatus::Fatal(_)
                )
        });
        if let Some((i, outcome)) = failed {
            let first = outcome.content.lines().next().unwrap_or_default().to_string();
            self.fall_back(format!("step {} ({}) failed: {first}", i + 1, outcome.tool)).await;
        }
    }

    /// The tool choice of the next model call: on the fast path the final turns may call
    /// tools, the last of them only answers; past them the fast path falls back.
    pub(super) async fn fast_tool_choice(&mut self) -> ToolChoice {
        let Some(fast) = &mut self.fast else { return ToolChoice::Auto };
        if fast.calls_left == 0 {
            self.fall_back("the final turns did not finish the task".into()).await;
            return ToolChoice::Auto;
        }
        fast.calls_left -= 1;
        if fast.calls_left == 0 {
            ToolChoice::None
        } else {
            ToolChoice::Auto
        }
    }

    /// Leaves the fast path under way for the normal loop, saying why.
    async fn fall_back(&mut self, reason: String) {
        let Some(fast) = self.fast.take() else { return };
        self.pipeline.set_digest(None);
        self.pending_note = None;
        self.fall_back_from(&fast.recipe, reason).await;
    }

    /// Announces the fallback from `recipe`'s fast path and counts it against the recipe.
    async fn fall_back_from(&mut self, recipe: &Recipe, reason: String) {
        self.host.emit(&AgentEvent::FastPathFallback { recipe: recipe_use(recipe), reason });
        self.record_failure(Some(&recipe.id)).await;
    }

    /// At the end of a top-level task: what its run teaches the recipes (see the module).
    pub(super) async fn learn_recipe(&mut self, end: &EndReason) {
        if self.config.depth > 0 {
            return;
        }
        if !end.is_success() {
            // A cancel says nothing about the recipe; a fallback has already been counted.
            if *end != EndReason::Cancelled && !self.recipe_charged {
                let used = self.fast.as_ref().map(|f| f.recipe.id.clone());
                self.record_failure(used.as_deref()).await;
            }
            return;
        }
        let now = self.clock.now_ms();
        let task_id = self.id.clone();
        let result = if let Some(fast) = &self.fast {
            let id = fast.recipe.id.clone();
            RecipeStore::update(&*self.vault, |store| store.credit(&id, &task_id, now)).await
        } else {
            let steps = self.recipe_steps();
            if steps.is_empty() {
                return;
            }
            let vector = self.request_vector().await;
            let request = self.kind_of_request().to_string();
            RecipeStore::update(&*self.vault, |store| {
                store.learn(&request, as_request_vector(&vector), steps, &task_id, now);
                true
            })
            .await
        };
        if let Err(e) = result {
            self.host.emit(&AgentEvent::Warning { message: format!("the recipe could not be saved: {e}") });
        }
    }

    /// Counts a failure against recipe `id`, or (no id) the recipe the request matches.
    async fn record_failure(&mut self, id: Option<&str>) {
        self.recipe_charged = true;
        let now = self.clock.now_ms();
        let vector = if id.is_none() { self.request_vector().await } else { None };
        let request = self.kind_of_request().to_string();
        let result = RecipeStore::update(&*self.vault, |store| {
            let id = match id {
                Some(id) => id.to_string(),
                None => match store.find(&request, as_request_vector(&vector)) {
                    Some(recipe) => recipe.id.clone(),
                    None => return false,
                },
            };
            store.count_against(&id, now)
        })
        .await;
        if let Err(e) = result {
            self.host.emit(&AgentEvent::Warning { message: format!("the recipe could not be updated: {e}") });
        }
    }

    /// This run's calls that worked, in order, as recipe steps. Left out: control tools (the
    /// final answer, questions, mode switches, sub-tasks) and `remember` (what the user told
    /// this conversation, not what the kind of task takes).
    fn recipe_steps(&self) -> Vec<RecipeStep> {
        let run = &self.history[self.start.min(self.history.len())..];
        let failed: BTreeSet<&str> = run
            .iter()
            .flat_map(|m| &m.content)
            .filter_map(|b| match b {
                ContentBlock::ToolResult { tool_use_id, is_error: true, .. } => Some(tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        run.iter()
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| m.tool_uses())
            .filter(|(id, name, _)| {
                !failed.contains(id)
                    && self
                        .pipeline
                        .registry()
                        .get(name)
                        .is_some_and(|t| t.kind() != ToolKind::Control && t.category() != ApprovalCategory::Memory)
            })
            .map(|(_, name, input)| RecipeStep::new(name, input))
            .collect()
    }

    /// The request as recipes know it: the user's words, without the notes attached to them.
    fn kind_of_request(&self) -> &str {
        split_request(&self.request).0.trim_end()
    }

    /// The request's vector, where the vault's index has an embedder.
    async fn request_vector(&self) -> Option<(String, Vec<f32>)> {
        let embedder = self.search.semantic().embedder()?;
        let vector = embedder.embed(&[self.kind_of_request()]).await.ok()?.pop()?;
        Some((embedder.id().to_string(), vector))
    }
}

fn as_request_vector(vector: &Option<(String, Vec<f32>)>) -> Option<RequestVector<'_>> {
    vector.as_ref().map(|(embedder, vector)| RequestVector { embedder, vector })
}
