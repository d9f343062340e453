//! The token benchmark: the same 8-step research task over the real vault, run twice by a
//! scripted model — (a) naive: every tool result inline, no prompt caching, no condensing;
//! (b) with everything on: large results externalized, Anthropic-style prompt caching
//! (simulated by `ScriptedProvider::with_prompt_cache`), condensing enabled — and the input
//! tokens, cached tokens and cost of each. Then (c): the same research handed down two levels
//! of sub-tasks (`new_task`: the task → a child in agent mode → a grandchild in ask mode that
//! reads the backlink notes), checking that each level's usage is its own model calls plus its
//! children's, exactly.
//!
//! `cargo bench --bench tokens` (reads `../shared/vaults/obsidian-help/`)
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::path::{Path, PathBuf};
    use std::rc::Rc;

    use serde_json::json;
    use vault_agent::agent::{AgentConfig, AgentTask, TaskSetup};
    use vault_agent::cancel::CancelToken;
    use vault_agent::host::{ManualClock, SilentHost};
    use vault_agent::index::SharedIndex;
    use vault_agent::memory::RECIPE_FILE;
    use vault_agent::protocol::{ApprovalCategory, EndReason, RunReport, Usage};
    use vault_agent::provider::{ScriptedProvider, Turn};
    use vault_agent::search::SearchIndex;
    use vault_agent::vault::{MemoryVault, Vault, VaultPath};

    /// Claude Sonnet prices per million tokens: input, cache write, cache read, output.
    const PRICES: [f64; 4] = [3.00, 3.75, 0.30, 15.00];

    fn vault_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vaults/obsidian-help")
    }

    /// The sample vault's notes, copied into memory (the bench writes a note).
    fn load_vault() -> MemoryVault {
        let vault = MemoryVault::new();
        let mut pending = vec![vault_dir()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                if name.starts_with('.') {
                    continue;
                }
                if path.is_dir() {
                    pending.push(path);
                } else if name.ends_with(".md") {
                    let rel = path.strip_prefix(vault_dir()).unwrap().to_string_lossy().to_string();
                    let text = std::fs::read_to_string(&path).unwrap();
                    futures::executor::block_on(vault.write(&VaultPath::parse(&rel).unwrap(), &text)).unwrap();
                }
            }
        }
        vault
    }

    /// What a researcher does: search, read, look around, search again, read more, write the
    /// summary note, finish. Eight model calls, each with the same calls in both runs.
    fn script() -> Vec<Turn> {
        vec![
            Turn::text_and_tools(
                "I'll look for the notes on Canvas and Graph view.",
                [("search_files", json!({"query": "canvas"})), ("search_files", json!({"query": "graph view"}))],
            ),
            Turn::tools([
                ("read_file", json!({"path": "en/Plugins/Canvas.md"})),
                ("read_file", json!({"path": "en/Plugins/Graph view.md"})),
            ]),
            Turn::tools([
                ("list_files", json!({"path": "en", "recursive": true})),
                ("get_linked_notes", json!({"path": "en/Plugins/Canvas.md"})),
            ]),
            Turn::tools([("search_files", json!({"query": "backlinks linked mentions", "limit": 40}))]),
            Turn::tools([
                ("read_file", json!({"path": "en/Plugins/Backlinks.md"})),
                ("read_file", json!({"path": "en/Linking notes and files/Internal links.md"})),
            ]),
            Turn::tools([("search_files", json!({"query": "outgoing links", "limit": 40}))]),
            Turn::tools([(
                "write_file",
                json!({"path": "Research/Canvas, graph and backlinks.md", "content": format!(
                    "# Canvas, graph and backlinks\n\n{}",
                    "- [[Canvas]] lays notes out on an infinite board; [[Graph view]] shows links as a network; [[Backlinks]] lists the notes that link here.\n".repeat(12)
                )}),
            )]),
            Turn::tools([("attempt_completion", json!({"result": "Wrote [[Canvas, graph and backlinks]]."}))]),
        ]
    }

    /// (c): the research as a sub-task, which hands the backlink reading to one of its own.
    fn delegated_script() -> Vec<Turn> {
        let mut research = script();
        let write = research.remove(6);
        let finish = research.remove(6);
        vec![
            Turn::tools([(
                "new_task",
                json!({"mode": "agent", "message": "Research how Canvas, Graph view and Backlinks work in Obsidian, write a \
                    summary note at Research/Canvas, graph and backlinks.md, and answer with its link."}),
            )]),
            research.remove(0),
            research.remove(0),
            Turn::tools([(
                "new_task",
                json!({"mode": "ask", "message": "Read en/Plugins/Backlinks.md and en/Linking notes and files/Internal \
                    links.md, and say in three sentences how backlinks and internal links work."}),
            )]),
            research.remove(2),
            Turn::text("Backlinks list the notes that link to the current one, as linked and unlinked mentions. Internal links are [[wikilinks]] or Markdown links to other notes. Obsidian updates them when a note is renamed."),
            write,
            finish,
            Turn::text("Wrote [[Canvas, graph and backlinks]]."),
        ]
    }

    fn run(vault: Rc<MemoryVault>, index: &SharedIndex, everything_on: bool) -> RunReport {
        let id = if everything_on { "bench-on" } else { "bench-naive" };
        run_script(vault, index, everything_on, script(), id)
    }

    /// (d), run `n` of five: the research in the normal loop (its note at a path of its own:
    /// replacing an existing note would need a read first), or — `fast` — the fast path's
    /// turns: the plan (every read of the research as JSON, as a planner would answer from the
    /// recipe), then one final turn that writes the note from the digest and completes.
    fn repeated_script(n: usize, fast: bool) -> Vec<Turn> {
        let mut turns = script();
        let mut plan = Vec::new();
        let mut write = None;
        for turn in &mut turns {
            let Turn::Reply { calls, .. } = turn else { continue };
            for call in calls {
                if call.name == "write_file" {
                    call.input["path"] = json!(format!("Research/Canvas, graph and backlinks {n}.md"));
                    write = Some(call.clone());
                } else if call.name != "attempt_completion" {
                    plan.push(json!({"tool": call.name, "args": call.input}));
                }
            }
        }
        if !fast {
            return turns;
        }
        let write = write.expect("the research writes a note");
        vec![
            Turn::text(json!({ "calls": plan }).to_string()),
            Turn::tools([
                (write.name.as_str(), write.input.clone()),
                ("attempt_completion", json!({"result": format!("Wrote [[Canvas, graph and backlinks {n}]].")})),
            ]),
        ]
    }

    fn run_script(
        vault: Rc<MemoryVault>,
        index: &SharedIndex,
        everything_on: bool,
        script: Vec<Turn>,
        id: &str,
    ) -> RunReport {
        let provider = ScriptedProvider::new(script);
        let provider = if everything_on { provider.with_prompt_cache() } else { provider };
        let config = AgentConfig {
            auto_approve: ApprovalCategory::ALL.to_vec(),
            externalize_threshold: if everything_on { 2_000 } else { usize::MAX },
            condensing_enabled: everything_on,
            memory_flush: false,
            tool_timeout_ms: 0,
            ..AgentConfig::default()
        };
        let setup = TaskSetup {
            config,
            provider: Rc::new(provider),
            vault,
            clock: Rc::new(ManualClock::new(1_795_392_000_000)),
            host: Rc::new(SilentHost),
            cancel: CancelToken::new(),
            tools: None,
            web: None,
            modes: vec![],
            vault_info: Default::default(),
            search: index.clone(),
            condense_hook: None,
            end_hook: None,
            history: Vec::new(),
            task_id: Some(id.into()),
        };
        futures::executor::block_on(async {
            let mut task = AgentTask::new(setup).await.unwrap();
            task.run("Research how Canvas, Graph view and Backlinks work in Obsidian and write a summary note.").await
        })
    }

    fn cost(u: &Usage) -> f64 {
        let tokens = [u.input_tokens, u.cache_write_tokens, u.cache_read_tokens, u.output_tokens];
        tokens.iter().zip(PRICES).map(|(t, p)| *t as f64 * p / 1e6).sum()
    }

    pub fn main() {
        let vault = Rc::new(load_vault());
        let index = SharedIndex::new();
        index.replace(
            futures::executor::block_on(SearchIndex::build(&*vault, &ManualClock::new(0), &mut |_| {})).unwrap(),
        );

        let naive = run(vault.clone(), &index, false);
        let on = run(vault.clone(), &index, true);
        let delegated = run_script(vault.clone(), &index, true, delegated_script(), "bench-on");
        for report in [&naive, &on] {
            assert_eq!(report.end, EndReason::Completed, "{:?}", report.end);
            assert_eq!(report.steps.len(), 8);
        }

        println!(
            "| run | model calls | input tokens (all) | uncached input | cache writes | cache reads | output | cost |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (name, r) in [("(a) naive", &naive), ("(b) everything on", &on)] {
            let u = &r.usage;
            println!(
                "| {name} | {} | {} | {} | {} | {} | {} | ${:.4} |",
                r.steps.len(),
                u.total_input(),
                u.input_tokens + u.cache_write_tokens,
                u.cache_write_tokens,
                u.cache_read_tokens,
                u.output_tokens,
                cost(u)
            );
        }
        let uncached = |u: &Usage| (u.input_tokens + u.cache_write_tokens) as f64;
        println!(
            "\n(b) uses {:.1} % of (a)'s uncached input tokens, {:.1} % of its input tokens, and {:.1} % of its cost.",
            100.0 * uncached(&on.usage) / uncached(&naive.usage),
            100.0 * on.usage.total_input() as f64 / naive.usage.total_input() as f64,
            100.0 * cost(&on.usage) / cost(&naive.usage)
        );
        println!("\nPer step, input tokens sent (a) → (b):");
        for (a, b) in naive.steps.iter().zip(&on.steps) {
            println!(
                "  step {}: {} → {} ({} read from cache)",
                a.step,
                a.usage.total_input(),
                b.usage.total_input(),
                b.usage.cache_read_tokens
            );
        }
        let externalized: Vec<&str> =
            on.steps.iter().flat_map(|s| &s.tool_calls).filter_map(|c| c.externalized.as_deref()).collect();
        println!("\nExternalized in (b): {externalized:?}");
        delegation(&delegated);
        repeated(vault, &index, &naive);
    }

    /// (d): the research five times in a row, everything on, on one vault (the recipes persist
    /// between runs; what (a)–(c) taught is removed first), each run with a fresh scripted
    /// model and so a cold prompt cache. Runs 1–3 teach the recipe in the normal loop; 4 and 5
    /// take its fast path. Checks the targets: ≤ 3 model calls and ≤ 10 % of (a)'s uncached
    /// input tokens.
    fn repeated(vault: Rc<MemoryVault>, index: &SharedIndex, naive: &RunReport) {
        let recipes = VaultPath::parse(RECIPE_FILE).unwrap();
        let _ = futures::executor::block_on(vault.remove(&recipes));
        let uncached = |u: &Usage| u.input_tokens + u.cache_write_tokens;
        println!("\n(d) the research five times in a row (everything on):\n");
        println!(
            "| run | path | model calls | input tokens (all) | uncached input | cache writes | cache reads | output | cost | uncached vs (a) |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for n in 1..=5 {
            let fast = n >= 4;
            let report = run_script(vault.clone(), index, true, repeated_script(n, fast), &format!("bench-run-{n}"));
            assert_eq!(report.end, EndReason::Completed, "run {n}: {:?}", report.end);
            assert_eq!(report.fast_path.is_some(), fast, "run {n}");
            let u = &report.usage;
            let share = 100.0 * uncached(u) as f64 / uncached(&naive.usage) as f64;
            println!(
                "| {n} | {} | {} | {} | {} | {} | {} | {} | ${:.4} | {share:.1} % |",
                if fast { "fast path" } else { "normal loop" },
                report.steps.len(),
                u.total_input(),
                uncached(u),
                u.cache_write_tokens,
                u.cache_read_tokens,
                u.output_tokens,
                cost(u)
            );
            if fast {
                for (i, step) in report.steps.iter().enumerate() {
                    println!(
                        "    run {n} call {}: {} input ({} uncached), {} output, {} tool calls",
                        i + 1,
                        step.usage.total_input(),
                        uncached(&step.usage),
                        step.usage.output_tokens,
                        step.tool_calls.len()
                    );
                }
                assert!(report.steps.len() <= 3, "run {n}: {} model calls", report.steps.len());
                assert!(share <= 10.0, "run {n}: {share:.1} % of (a)'s uncached input");
            }
        }
    }

    /// The report of the sub-task the first `new_task` call of `report` started.
    fn subtask_of(report: &RunReport) -> &RunReport {
        report.steps.iter().flat_map(|s| &s.tool_calls).find_map(|c| c.subtask.as_deref()).expect("a sub-task")
    }

    fn own(report: &RunReport) -> Usage {
        report.steps.iter().fold(Usage::default(), |sum, s| sum + s.usage)
    }

    /// (c): each level's usage, its own model calls' and its children's, and the check that they
    /// add up exactly.
    fn delegation(parent: &RunReport) {
        assert_eq!(parent.end, EndReason::Answered, "{:?}", parent.end);
        let child = subtask_of(parent);
        let grandchild = subtask_of(child);
        assert_eq!(grandchild.usage, own(grandchild));
        assert_eq!(child.usage, own(child) + grandchild.usage);
        assert_eq!(parent.usage, own(parent) + child.usage);
        println!("\n(c) delegated two levels (everything on):\n");
        println!("| level | task | model calls | own input (all) | own output | + sub-tasks' input | = reported input | reported output | cost |");
        println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
        for (level, r, below) in [(0, parent, Some(child)), (1, child, Some(grandchild)), (2, grandchild, None)] {
            let mine = own(r);
            println!(
                "| {level} | {} | {} | {} | {} | {} | {} | {} | ${:.4} |",
                r.task_id,
                r.steps.len(),
                mine.total_input(),
                mine.output_tokens,
                below.map_or(0, |b| b.usage.total_input()),
                r.usage.total_input(),
                r.usage.output_tokens,
                cost(&r.usage)
            );
        }
        let calls = parent.steps.len() + child.steps.len() + grandchild.steps.len();
        let all = own(parent) + own(child) + own(grandchild);
        assert_eq!(parent.usage, all);
        println!(
            "\nThe task's usage is its {calls} model calls' exactly: {} input ({} from cache), {} output, ${:.4}.",
            all.total_input(),
            all.cache_read_tokens,
            all.output_tokens,
            cost(&all)
        );
    }
}
