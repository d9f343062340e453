/**
 * The shapes of what crosses between the plugin and its core. What the core answers and emits
 * (events, reports, plans, saved chats) is generated from the Rust types
 * (`js/generated/protocol.ts`, checked by `tests/native/generated_ts.rs`); events and reports
 * are snake_case as Rust writes them. The option objects JS writes (camelCase) are declared here.
 */

export type {
  AgentEvent,
  ApprovalCategory,
  ApprovalDecision,
  ApprovalRequest,
  ChangePreview,
  ChatSummary,
  ChatTask,
  CheckpointSummary,
  ConnectionCheck,
  ContentBlock,
  EndReason,
  ErrorKind,
  InterruptedTask,
  Message,
  ModelPrice,
  Question,
  RunReport,
  SavedChat,
  UndoChoice,
  UndoConflict,
  UndoPlan,
  UndoReport,
  Usage,
} from "./generated/protocol";
import type { ApprovalCategory, Message, UndoChoice } from "./generated/protocol";

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

/** Per path, the choice for a conflict (a path not named keeps what is there). */
export type UndoChoices = Record<string, UndoChoice>;

/** The block of attached notes after a user's message (`ATTACHMENTS_OPEN` in Rust). */
export const ATTACHMENTS_OPEN = "<attached_notes>";
