/**
 * The shapes of what crosses the wasm boundary, mirroring the Rust types (`src/protocol/`,
 * `src/provider/config.rs`, `src/agent/`). Events and reports are snake_case as Rust writes
 * them; option objects JS writes are camelCase.
 */

export type ProviderKind = "anthropic" | "openai" | "openai-compatible";

/** `ProviderConfig` (src/provider/config.rs). */
export interface ProviderConfig {
  kind: ProviderKind;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  maxTokens?: number;
  headers?: Record<string, string>;
  textToolDialect?: "fenced-json" | "bracket-tag" | "xml-invoke";
}

export type ApprovalCategory = "read" | "write" | "delete" | "control";
export type ApprovalDecision = "approve" | "always_allow" | "skip" | "deny";
export type ToolGroup = "read" | "search" | "edit" | "agent" | "mcp";

/** A custom mode (`Mode`, src/agent/mode.rs). */
export interface ModeConfig {
  slug: string;
  name: string;
  role: string;
  groups: ToolGroup[];
}

/** `AgentConfig` (src/agent/config.rs); every field is optional. */
export interface AgentConfig {
  maxIterations?: number;
  contextWindow?: number;
  maxTokens?: number;
  toolTimeoutMs?: number;
  autoApprove?: ApprovalCategory[];
  mode?: string;
  /** Tool calls per task at most (0: no budget). */
  maxToolCalls?: number;
  /** The task stops this long after it started (0: no deadline). */
  deadlineMs?: number;
}

export type Transport = "auto" | "fetch" | "request";

export interface ChatOptions {
  provider: ProviderConfig;
  agent?: AgentConfig;
  vault?: { name: string; noteCount?: number; activeNote?: string | null };
  history?: Message[];
  modes?: ModeConfig[];
  transport?: Transport;
  /** The saved chat this is (its tasks' snapshots name it). */
  chatId?: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; media_type: string; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string };

export interface Message {
  role: "user" | "assistant";
  content: ContentBlock[];
}

/** One row of a diff (`DiffRow`): a hunk's start, or a line kept, removed or added. */
export interface DiffRow {
  kind: "hunk" | "context" | "removed" | "added";
  old_line?: number;
  new_line?: number;
  /** `changed`: the words that differ from the paired line. */
  parts: { text: string; changed: boolean }[];
}

export type ChangePreview =
  | { kind: "write"; path: string; old: string | null; new: string; diff: string; rows?: DiffRow[] }
  | { kind: "move"; from: string; to: string }
  | { kind: "delete"; path: string }
  | { kind: "create_folder"; path: string };

export interface ApprovalRequest {
  id: string;
  call_id: string;
  tool: string;
  category: ApprovalCategory;
  summary: string;
  input: unknown;
  preview?: ChangePreview;
}

export interface Question {
  id: string;
  question: string;
  suggestions: string[];
}

export type ErrorKind =
  | "rate_limited"
  | "context_overflow"
  | "auth"
  | "bad_request"
  | "network"
  | "overloaded"
  | "cancelled"
  | "protocol"
  | "unreachable";

/** The provider setting an error points at (`ProviderSetting`). */
export type ProviderSetting = "api_key" | "base_url" | "model";

/** A model-call error as the user is shown it (`ProviderProblem`). */
export interface ProviderProblem {
  kind: ErrorKind;
  message: string;
  detail: string;
  setting?: ProviderSetting;
}

/** A tool call as a person reads it (`CallLabel`, src/protocol/label.rs). */
export interface CallLabel {
  parts: ({ kind: "text"; text: string } | { kind: "note"; path: string; name: string })[];
  notes: string[];
  /** Calls with the same group in a row show as one card: "Read {n} notes". */
  group?: string;
}

/** How a call ended, in the user's terms (`ToolOutcome`). */
export type ToolOutcome = "done" | "failed" | "blocked" | "skipped" | "denied" | "not_run";

export type EndReason =
  | { reason: "completed" | "answered" | "cancelled" | "max_iterations" | "mistake_limit" | "repetition_loop" | "denied" }
  | { reason: "tool_budget"; limit: number }
  | { reason: "deadline"; limit_ms: number }
  | { reason: "failed"; kind: ErrorKind | null; message: string };

/** A task that did not finish (`VaultCore.interruptedTasks`, src/agent/snapshot.rs). */
export interface InterruptedTask {
  taskId: string;
  chatId?: string | null;
  title: string;
  updatedMs: number;
  steps: number;
  /** What it was waiting for approval of. */
  waitingFor?: string | null;
  /** Why it cannot be resumed (it can still be discarded). */
  problem?: string | null;
}

/** One tool call of a report (`ToolCallReport`). */
export interface ToolCallReport {
  call_id: string;
  tool: string;
  error?: string;
  label?: CallLabel;
  outcome?: ToolOutcome;
}

export interface RunReport {
  task_id: string;
  end: EndReason;
  /** What the user is told about the end (the core's words). */
  ended?: string;
  final_text?: string;
  steps: { tool_calls: ToolCallReport[] }[];
  usage: Usage;
  duration_ms: number;
  tool_calls: number;
  tool_errors: number;
  changed_paths: string[];
}

export type AgentEvent =
  | { type: "task_started"; task_id: string; mode: string }
  | { type: "step_started"; step: number }
  | { type: "step_finished"; step: number; usage: Usage; total: Usage }
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  | { type: "tool_started"; call_id: string; tool: string; input: unknown; label?: CallLabel }
  | {
      type: "tool_finished";
      call_id: string;
      tool: string;
      is_error: boolean;
      summary: string;
      duration_ms: number;
      label?: CallLabel;
      outcome?: ToolOutcome;
      /** What the model was told (cut): the card's details. */
      result?: string;
    }
  | { type: "approval_required"; request: ApprovalRequest }
  | { type: "approval_resolved"; request_id: string; decision: ApprovalDecision }
  | { type: "question_asked"; question: Question }
  | { type: "externalized"; call_id: string; path: string; chars: number }
  | { type: "warning"; message: string }
  | { type: "retrying"; attempt: number; max_attempts: number; delay_ms: number; problem: ProviderProblem }
  | { type: "error"; message: string; kind?: ErrorKind; detail?: string; setting?: ProviderSetting }
  | { type: "done"; report: RunReport };

export interface UndoReport {
  task_id: string;
  restored: string[];
  recreated_folders: string[];
  trashed: string[];
  unchanged: string[];
  /** Paths left as they are, and why (changed since the task; a folder with files it did not create). */
  kept: { path: string; reason: string }[];
  /** Versions from before the task saved beside a kept file. */
  copies: { path: string; copy: string }[];
  failed: [string, string][];
  undo_checkpoint: string;
}

/** What to do with a file changed since the task left it. */
export type UndoChoice = "keep_mine" | "restore" | "save_copy";

/** Per path, the choice for a conflict (a path not named keeps what is there). */
export type UndoChoices = Record<string, UndoChoice>;

export interface UndoConflict {
  path: string;
  reason: string;
  later_tasks: string[];
  before: "file" | "folder" | "absent";
  now: "file" | "folder" | "absent";
  choices: UndoChoice[];
  copy_path?: string;
}

/** `planUndo` / `planRedo`: what the undo would do, before anything changes. */
export interface UndoPlan {
  task_id: string;
  restore: string[];
  remove: string[];
  unchanged: string[];
  conflicts: UndoConflict[];
  kept: { path: string; reason: string }[];
}

export interface CheckpointSummary {
  task_id: string;
  created_ms: number;
  paths: string[];
  undone_ms?: number;
}

/** `ModelPrice`: US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ConnectionCheck {
  ok: boolean;
  model: string;
  latencyMs: number;
  firstTokenMs?: number;
  reply: string;
  usage: Usage;
  error?: { kind: ErrorKind; message: string; status?: number | null };
}

export interface ChatTask {
  messageIndex: number;
  report: RunReport;
  undone: boolean;
}

export interface SavedChat {
  id: string;
  title: string;
  createdMs: number;
  updatedMs: number;
  mode: string;
  messages: Message[];
  tasks: ChatTask[];
}

export interface ChatSummary {
  id: string;
  title: string;
  updatedMs: number;
  messages: number;
}

/** The block of attached notes after a user's message (`ATTACHMENTS_OPEN` in Rust). */
export const ATTACHMENTS_OPEN = "<attached_notes>";
