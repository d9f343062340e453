/**
 * The shapes of what crosses between the plugin and its core. What the core answers and emits
 * (events, reports, plans, chats' transcripts) is generated from the Rust types
 * (`js/generated/protocol.ts`, checked by `tests/native/generated_ts.rs`), all in camelCase.
 * The option objects JS writes are the generated ones with what the core defaults made optional.
 */

export type {
  AgentEvent,
  ServerPrompt,
  ServerResource,
  McpOffer,
  SubtaskInfo,
  FieldInput,
  FormAction,
  FormAnswer,
  FormField,
  FormRequest,
  CallLabel,
  DiffRow,
  ProviderProblem,
  ProviderSetting,
  ToolCallReport,
  ToolOutcome,
  Transcript,
  TranscriptStep,
  TranscriptTurn,
  ApprovalCategory,
  ApprovalDecision,
  ApprovalRequest,
  ChangePreview,
  ChatMatch,
  ChatPassage,
  ChatSummary,
  CallPurpose,
  Spend,
  ChatTask,
  CheckpointSummary,
  ConnectionCheck,
  ModelInfo,
  ModelList,
  ContentBlock,
  EndReason,
  ErrorKind,
  InlineEditReport,
  InlineEditRequest,
  InterruptedTask,
  MemoryEntry,
  MemoryKind,
  MediaSupport,
  Message,
  ModelPrice,
  Question,
  RecipeUse,
  ContextUse,
  RunReport,
  SavedChat,
  UndoChoice,
  UndoConflict,
  UndoPlan,
  UndoReport,
  ProviderKind,
  TextToolDialect,
  ToolGroup,
  Transport,
  Usage,
  VaultInfo,
  DatedNote,
  FromEmbedWorker,
  FromIndexWorker,
  ToIndexWorker,
  HttpAnswer,
  HttpRequest,
  EmbedderOptions,
  EmbedderSet,
  InstallOptions,
  EmbedReport,
  EmbedStatus,
  Fusion,
  HybridHit,
  HybridQuery,
  LoadOutcome,
  LoadProblem,
  McpCredentials,
  McpServerConfig,
  McpSignIn,
  McpToolInfo,
  RelatedNote,
  RetentionPolicy,
  SearchHit,
  SearchMode,
  SearchQuery,
  WebSearchCheck,
  WebSearchConfig,
} from "./generated/protocol";
import type {
  AgentConfig as CoreAgentConfig,
  ChatOptions as CoreChatOptions,
  Mode,
  ProviderConfig as CoreProviderConfig,
  UndoChoice,
  VaultInfo,
} from "./generated/protocol";

/** A `ProviderConfig` as JS writes it: the kind and the model; the core fills in the rest. */
export type ProviderConfig = Pick<CoreProviderConfig, "kind" | "model"> & Partial<Omit<CoreProviderConfig, "kind" | "model">>;

/** A custom mode (`Mode`, src/agent/mode.rs). */
export type ModeConfig = Mode;

/** `AgentConfig` as JS writes it: every field is optional (the core's defaults fill the rest). */
export type AgentConfig = Partial<CoreAgentConfig>;

/**
 * `ChatOptions` as JS writes it: the provider, the rest optional (the core's defaults fill in
 * what is left out).
 */
export type ChatOptions = Partial<Omit<CoreChatOptions, "provider" | "agent" | "vault">> & {
  provider: ProviderConfig;
  agent?: AgentConfig;
  vault?: Partial<VaultInfo>;
};

/** Per path, the choice for a conflict (a path not named keeps what is there). */
export type UndoChoices = Record<string, UndoChoice>;
