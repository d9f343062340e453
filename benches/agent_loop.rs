//! The agent loop's own cost per iteration: a scripted model that answers at once and a tool
//! that does nothing, so what is measured is the loop and the pipeline (streaming and
//! assembling the answer, validation, the repetition guard, path checks, the audit log, the
//! history) — not a model or a tool.
//!
//! `cargo bench --bench agent_loop`
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::hint::black_box;
    use std::rc::Rc;
    use std::time::Instant;

    use async_trait::async_trait;
    use serde_json::json;
    use vault_agent::agent::{AgentConfig, AgentTask, TaskSetup};
    use vault_agent::cancel::CancelToken;
    use vault_agent::host::{SilentHost, SystemClock};
    use vault_agent::protocol::{ModelRequest, Role};
    use vault_agent::provider::{ScriptedProvider, Turn};
    use vault_agent::tools::{builtin_tools, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
    use vault_agent::vault::MemoryVault;

    /// A read-only tool that returns at once.
    struct Noop;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Args {
        i: i64,
    }

    #[async_trait(?Send)]
    impl Tool for Noop {
        type Args = Args;
        type Plan = Args;
        const NAME: &'static str = "noop";
        const KIND: ToolKind = ToolKind::Read;
        const GROUP: ToolGroup = ToolGroup::Read;
        fn description(&self) -> &str {
            "Does nothing."
        }
        async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
            Ok(args)
        }
        async fn apply(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(format!("ok {}", args.i)))
        }
    }

    /// Runs one task of `steps` iterations (each one noop call with new arguments, then a final
    /// text answer) and returns the wall time in microseconds.
    fn run_task(steps: u32) -> f64 {
        let turn = |request: &ModelRequest| {
            let done = request.messages.iter().filter(|m| m.role == Role::Assistant).count() as u32;
            Turn::text_and_tools("Working on it.", [("noop", json!({"i": done}))])
        };
        let mut turns: Vec<Turn> = (0..steps - 1).map(|_| Turn::Dynamic(Box::new(turn))).collect();
        turns.push(Turn::text("Done."));
        let mut tools = builtin_tools();
        tools.register(Rc::new(Noop));
        let setup = TaskSetup {
            config: AgentConfig { max_iterations: steps, soft_limit_percent: 100, ..AgentConfig::default() },
            provider: Rc::new(ScriptedProvider::new(turns).with_chunk_chars(64)),
            vault: Rc::new(MemoryVault::new()),
            clock: Rc::new(SystemClock),
            host: Rc::new(SilentHost),
            cancel: CancelToken::new(),
            tools: Some(tools),
            web: None,
            modes: vec![],
            vault_info: Default::default(),
            search: vault_agent::index::SharedIndex::new(),
            condense_hook: None,
            history: Vec::new(),
            task_id: Some("bench".into()),
        };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async {
            let mut task = AgentTask::new(setup).await.unwrap();
            let start = Instant::now();
            let report = task.run("benchmark").await;
            let elapsed = start.elapsed().as_secs_f64() * 1e6;
            assert_eq!(report.steps.len() as u32, steps, "{:?}", report.end);
            black_box(report);
            elapsed
        })
    }

    fn percentile(sorted: &[f64], p: f64) -> f64 {
        sorted[((sorted.len() - 1) as f64 * p).round() as usize]
    }

    pub fn main() {
        println!("| iterations per task | runs | per iteration p50 | per iteration p99 | whole task p50 |");
        println!("|---:|---:|---:|---:|---:|");
        for steps in [5u32, 25, 100] {
            let runs = 200;
            for _ in 0..10 {
                run_task(steps); // warm-up
            }
            let mut totals: Vec<f64> = (0..runs).map(|_| run_task(steps)).collect();
            totals.sort_by(f64::total_cmp);
            let per = |t: f64| t / f64::from(steps);
            println!(
                "| {steps} | {runs} | {:.1} µs | {:.1} µs | {:.2} ms |",
                per(percentile(&totals, 0.5)),
                per(percentile(&totals, 0.99)),
                percentile(&totals, 0.5) / 1000.0
            );
        }
    }
}
