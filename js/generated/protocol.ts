// Generated from the Rust types by tests/native/generated_ts.rs: do not edit.
// Update: UPDATE_GENERATED=1 cargo test --locked --test native generated_ts

/**
 * Main thread → core.
 */
export type ToCore = { "kind": "start", id: number, wasm: string | WebAssembly.Module, } | { "kind": "call", id: number, target: number, method: string, args: unknown[], callbacks: Array<CallbackArg>, } | { "kind": "release", target: number, } | { "kind": "host_reply", id: number, reply: Reply, };

/**
 * Core → main thread.
 */
export type FromCore = { "kind": "reply", id: number, reply: Reply, } | { "kind": "callback", callback: number, args: unknown[], } | { "kind": "host", id: number, call: HostCall, };

/**
 * A function argument of a [`ToCore::Call`]: the argument at `index` is the main thread's
 * callback `callback`.
 */
export type CallbackArg = { index: number, callback: number, };

/**
 * How a call ended.
 */
export type Reply = { "outcome": "value", value: unknown, } | { "outcome": "handle", handle: number, } | { "outcome": "error", message: string, code?: string, };

/**
 * A call the core makes to the main thread: the `VaultHost` methods (`js/host/VaultHost.ts`)
 * and the `request` transport, by name (`op`), with their arguments.
 */
export type HostCall = { "op": "read", path: string, } | { "op": "readBinary", path: string, } | { "op": "readBatch", paths: Array<string>, } | { "op": "pdfPages", path: string, } | { "op": "htmlToMarkdown", html: string, } | { "op": "write", path: string, content: string, } | { "op": "writeBinary", path: string, data: Uint8Array, } | { "op": "list", path: string, } | { "op": "stat", path: string, } | { "op": "mkdir", path: string, } | { "op": "rename", from: string, to: string, } | { "op": "trash", path: string, } | { "op": "remove", path: string, } | { "op": "request", request: HttpRequest, } | { "op": "processStart", command: string, args: Array<string>, env: { [key in string]: string }, } | { "op": "processSend", id: number, line: string, } | { "op": "processRead", id: number, } | { "op": "processClose", id: number, };

/**
 * A request as `JsRequestClient` sends it (`src/wasm/request_client.rs`).
 */
export type HttpRequest = { method: string, url: string, headers: { [key in string]: string }, body?: Uint8Array, };

/**
 * The whole answer to an [`HttpRequest`] (the reply to [`HostCall::Request`]): an error status
 * is an answer, not a rejection. The binding reads it field by field (`JsRequestClient`), so
 * the body may be any of the three shapes a JS transport has at hand.
 */
export type HttpAnswer = { status: number, headers: { [key in string]: string }, body: ArrayBuffer | Uint8Array | string, };

/**
 * One note of a `readBatch`: its text, or its bytes for the core to decode (UTF-8; not text
 * is `EILSEQ`), with its mtime (ms since the epoch, 0 when unknown); or why it could not be
 * read (`code` as in [`Reply::Error`]). The plugin's host sends bytes: a string decoded on the
 * UI thread for each note was garbage its collector paused for (BENCHMARKS.md, gen50k).
 */
export type BatchRead = { text: string, mtime: number, } | { 
/**
 * A `Uint8Array` in JS (read from it directly by the binding, not through serde).
 */
bytes: Uint8Array, mtime: number, } | { error: string, code?: string, };

/**
 * What the core asks of its host to run MiniLM in workers (`VaultHost.embedWorkers`): `count`
 * workers, each loading the model from the vault's files. The answer is one `EmbedWorker`
 * handle per worker, all started, or a rejection.
 */
export type EmbedWorkersRequest = { 
/**
 * The vault paths of `model.safetensors`, `vocab.txt` and `config.json`.
 */
weights: string, vocab: string, config: string, 
/**
 * Inputs are cut at this many tokens.
 */
maxTokens: number, count: number, };

/**
 * The core → an embedding worker.
 */
export type ToEmbedWorker = { "kind": "start", wasm: WebAssembly.Module | Uint8Array, 
/**
 * `model.safetensors`.
 */
weights: ArrayBuffer, vocab: string, config: string, maxTokens: number, } | { "kind": "embed", id: number, texts: Array<string>, };

/**
 * An embedding worker → the core.
 */
export type FromEmbedWorker = { "kind": "ready", model: string, dimensions: number, batchSize: number, } | { "kind": "vectors", id: number, data: Float32Array, } | { "kind": "failed", id?: number, message: string, };

/**
 * The core → an index worker.
 */
export type ToIndexWorker = { "kind": "start", wasm: WebAssembly.Module | Uint8Array, } | { "kind": "add", paths: Array<string>, texts: Array<string>, mtimes: Array<number>, } | { "kind": "finish" };

/**
 * An index worker → the core.
 */
export type FromIndexWorker = { "kind": "ready" } | { "kind": "part", segments: Uint8Array, catalog: Uint8Array, } | { "kind": "failed", message: string, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * Who wrote a message. Tool results travel in `User` messages, as both APIs expect.
 */
export type Role = "user" | "assistant";

/**
 * One block of a message.
 */
export type ContentBlock = { "type": "text", text: string, } | { "type": "image", mediaType: string, data: string, } | { "type": "document", mediaType: string, data: string, name: string, } | { "type": "tool_use", id: string, name: string, input: JsonValue, signature?: string | null, } | { "type": "tool_result", toolUseId: string, content: string, isError: boolean, } | { "type": "thinking", thinking: string, signature?: string | null, } | { "type": "redacted_thinking", data: string, } | { "type": "reasoning_details", details: JsonValue, };

/**
 * A message in the history.
 */
export type Message = { role: Role, content: Array<ContentBlock>, };

/**
 * Token counts for one model call (or a sum of them).
 */
export type Usage = { 
/**
 * Uncached input tokens.
 */
inputTokens: number, outputTokens: number, 
/**
 * Input tokens read from the provider's prompt cache.
 */
cacheReadTokens: number, 
/**
 * Input tokens written to the provider's prompt cache.
 */
cacheWriteTokens: number, };

/**
 * What went wrong with a model call, sorted so the loop can decide: back off, condense or
 * stop.
 */
export type ErrorKind = "rate_limited" | "quota_exhausted" | "context_overflow" | "auth" | "bad_request" | "network" | "overloaded" | "cancelled" | "protocol" | "unreachable";

/**
 * A categorised model-call error.
 */
export type ProviderError = { kind: ErrorKind, message: string, 
/**
 * The HTTP status, if one was received.
 */
status: number | null, 
/**
 * How long the provider asked us to wait (Retry-After), in milliseconds.
 */
retryAfterMs: number | null, };

/**
 * The kind of effect a tool call has, which is what an approval policy decides on.
 */
export type ApprovalCategory = "read" | "write" | "delete" | "control" | "mcp" | "web" | "memory";

/**
 * The host's answer to an [`ApprovalRequest`].
 */
export type ApprovalDecision = "approve" | "always_allow" | "skip" | "deny";

/**
 * What a write would change, for the approval view.
 */
export type ChangePreview = { "kind": "write", path: string, old: string | null, new: string, diff: string, rows: Array<DiffRow>, } | { "kind": "move", from: string, to: string, } | { "kind": "delete", path: string, } | { "kind": "create_folder", path: string, };

/**
 * One row of a diff: a hunk's start, or a line kept, removed or added.
 */
export type DiffRow = { kind: DiffRowKind, 
/**
 * Line numbers from 1, in the old and the new text (a removed line has no new one).
 */
oldLine?: number | null, newLine?: number | null, 
/**
 * The row's text in pieces; `changed` marks the words that differ from the paired line.
 */
parts: Array<DiffPart>, };

/**
 * What a [`DiffRow`] is.
 */
export type DiffRowKind = "hunk" | "context" | "removed" | "added";

/**
 * A piece of a [`DiffRow`]'s text.
 */
export type DiffPart = { text: string, changed: boolean, };

/**
 * A tool call waiting for the host's decision.
 */
export type ApprovalRequest = { 
/**
 * Unique within the task; the host answers with it.
 */
id: string, 
/**
 * The model's id for the tool call.
 */
callId: string, tool: string, category: ApprovalCategory, 
/**
 * One line saying what the call does, e.g. `edit_file Projects/Plan.md`.
 */
summary: string, input: JsonValue, preview?: ChangePreview | null, 
/**
 * The sub-task asking, when it is not the user's task itself (`new_task`).
 */
subtask?: SubtaskInfo | null, };

/**
 * A question the model asks the user (`ask_followup_question`).
 */
export type Question = { 
/**
 * Unique within the task; the host answers with it.
 */
id: string, question: string, 
/**
 * Answers the model suggests; the user may also type their own.
 */
suggestions: Array<string>, 
/**
 * The sub-task asking, when it is not the user's task itself (`new_task`).
 */
subtask?: SubtaskInfo | null, };

/**
 * A form to show the user: who asks, what for, and the fields to fill in.
 */
export type FormRequest = { 
/**
 * Unique within the task; the host answers with it.
 */
id: string, 
/**
 * The MCP server asking, by the name the user gave it.
 */
server: string, 
/**
 * What the server says it needs: its own words, shown as plain text.
 */
message: string, fields: Array<FormField>, 
/**
 * A page to open instead of fields to fill in (URL mode: a sign-in, a payment, a secret
 * that must not pass through this client). Accepting means the user agreed to open it.
 */
page?: FormPage | null, 
/**
 * The sub-task whose call is asking, when it is not the user's task itself.
 */
subtask?: SubtaskInfo | null, };

/**
 * One field of a form.
 */
export type FormField = { 
/**
 * The key its value is sent under.
 */
name: string, 
/**
 * What the field is called (the schema's title, else its key).
 */
label: string, description: string, required: boolean, input: FieldInput, };

/**
 * A page a server asks the user to open, checked before anyone sees it: `https` (or `http`
 * to this computer), with a host and no user name or password in it.
 */
export type FormPage = { 
/**
 * The whole address, shown in full before the user agrees to open it.
 */
url: string, 
/**
 * Where it leads, shown on its own (as written: a look-alike's `xn--` name shows as such).
 */
host: string, };

/**
 * What a field takes, and its default.
 */
export type FieldInput = { "kind": "text", format: TextFormat, minLength: number | null, maxLength: number | null, default: string | null, } | { "kind": "number", integer: boolean, minimum: number | null, maximum: number | null, default: number | null, } | { "kind": "toggle", default: boolean, } | { "kind": "choice", options: Array<FormOption>, default: string | null, } | { "kind": "choices", options: Array<FormOption>, minItems: number | null, maxItems: number | null, default: Array<string>, };

/**
 * The kind of text a text field takes.
 */
export type TextFormat = "plain" | "email" | "uri" | "date" | "date_time";

/**
 * A value a choice offers, and what the user reads for it.
 */
export type FormOption = { value: string, label: string, };

/**
 * What the user did with a form.
 */
export type FormAction = "accept" | "decline" | "cancel";

/**
 * The user's answer to a form: the values, when they sent it.
 */
export type FormAnswer = { action: FormAction, content?: Record<string, unknown> | null, };

/**
 * A sub-task as the user is shown it: an approval or a question it asks carries this, so the
 * host can say who is asking.
 */
export type SubtaskInfo = { 
/**
 * The sub-task's own id (`<parentId>.<callIndex>`, nested for deeper ones).
 */
taskId: string, 
/**
 * The mode it runs in.
 */
mode: string, 
/**
 * How deep it is nested: 1 for a task the user's task started.
 */
depth: number, 
/**
 * What it was asked to do, in one line.
 */
title: string, };

/**
 * One event of a running task, in the order things happened. The host renders them; it
 * answers `ApprovalRequired`, `QuestionAsked` and `FormRequested` through its `AgentHost` implementation.
 */
export type AgentEvent = { "type": "task_started", taskId: string, mode: string, } | { "type": "step_started", step: number, } | { "type": "step_finished", step: number, usage: Usage, total: Usage, 
/**
 * What `total` costs in US dollars, when the model's price is known.
 */
cost: number | null, 
/**
 * How full the model's context is after this call.
 */
context?: ContextUse | null, } | { "type": "text_delta", text: string, } | { "type": "thinking_delta", text: string, } | { "type": "tool_started", callId: string, tool: string, input: JsonValue, 
/**
 * The call as the user reads it, from its arguments.
 */
label: CallLabel, } | { "type": "tool_finished", callId: string, tool: string, isError: boolean, 
/**
 * The first line of what the model was told.
 */
summary: string, durationMs: number, 
/**
 * The call as the user reads it, now with what it found ("— 5 notes").
 */
label: CallLabel, 
/**
 * How it ended, in the user's terms.
 */
outcome: ToolOutcome, 
/**
 * What the model was told (cut at 4,000 characters): the card's details.
 */
result: string, } | { "type": "tool_progress", callId: string, progress: number, total: number | null, message: string | null, } | { "type": "approval_required", request: ApprovalRequest, } | { "type": "approval_resolved", requestId: string, decision: ApprovalDecision, } | { "type": "question_asked", question: Question, } | { "type": "form_requested", form: FormRequest, } | { "type": "externalized", callId: string, path: string, chars: number, } | { "type": "context_condensed", 
/**
 * Estimated input tokens before and after.
 */
tokensBefore: number, tokensAfter: number, 
/**
 * How many messages the summary replaced.
 */
messagesSummarized: number, } | { "type": "mode_changed", mode: string, } | { "type": "fast_path", recipe: RecipeUse, } | { "type": "fast_path_fallback", recipe: RecipeUse, reason: string, } | { "type": "warning", message: string, } | { "type": "mcp_sign_in_needed", server: string, message: string, } | { "type": "chat_saved", chatId: string, title: string, } | { "type": "done", report: RunReport, } | { "type": "retrying", 
/**
 * The attempt that failed, from 1.
 */
attempt: number, maxAttempts: number, delayMs: number, problem: ProviderProblem, } | { "type": "subtask", callId: string, taskId: string, event: AgentEvent, } | { "type": "error", 
/**
 * What went wrong, in plain words.
 */
message: string, kind?: ErrorKind | null, 
/**
 * The provider's own words (and HTTP status), when a model call failed.
 */
detail?: string | null, 
/**
 * The provider setting the error points at (the chat offers to open the settings).
 */
setting?: ProviderSetting | null, };

/**
 * A model-call error as the user is shown it.
 */
export type ProviderProblem = { kind: ErrorKind, 
/**
 * A sentence in plain words ([`ProviderError::explain`]).
 */
message: string, 
/**
 * The provider's own words and HTTP status.
 */
detail: string, setting?: ProviderSetting | null, };

/**
 * The provider setting that an error says is wrong: the chat offers to open it.
 */
export type ProviderSetting = "api_key" | "base_url" | "model";

/**
 * What the chat shows for a tool call: "Read *Internal links*", "Searched for 'internal
 * links' — 5 notes". The core writes it from the call's arguments (and, once the call is done,
 * its result), so the host renders it without knowing any tool.
 */
export type CallLabel = { 
/**
 * The words in order; a note part is shown by its name and opens the note.
 */
parts: Array<LabelPart>, 
/**
 * Every note the call named or found, in order, without repeats (each opens the note).
 */
notes: Array<string>, 
/**
 * Calls with the same group one after another show as one card, titled by the group with
 * `{n}` replaced by their number ("Read {n} notes"). None: the call stands alone.
 */
group?: string | null, };

/**
 * One piece of a [`CallLabel`].
 */
export type LabelPart = { "kind": "text", text: string, } | { "kind": "note", path: string, name: string, };

/**
 * How a call ended, as the user is told (the model's own text goes in the details).
 */
export type ToolOutcome = "done" | "failed" | "blocked" | "skipped" | "denied" | "not_run";

/**
 * Why a run ended.
 */
export type EndReason = { "reason": "completed" } | { "reason": "answered" } | { "reason": "cancelled" } | { "reason": "max_iterations" } | { "reason": "mistake_limit" } | { "reason": "repetition_loop" } | { "reason": "denied" } | { "reason": "tool_budget", limit: number, } | { "reason": "deadline", limitMs: number, } | { "reason": "failed", kind: ErrorKind | null, message: string, } | { "reason": "guardrail", message: string, };

/**
 * Everything a run did, for the UI, the logs and benchmarks.
 */
export type RunReport = { taskId: string, end: EndReason, 
/**
 * What the user is told about the end: [`EndReason::describe`] ("Stopped: the model
 * repeated the same calls.").
 */
ended: string, 
/**
 * The final answer: `attempt_completion`'s result or the last text answer.
 */
finalText?: string | null, steps: Array<StepReport>, 
/**
 * Summed over every model call, the sub-tasks' included.
 */
usage: Usage, 
/**
 * What `usage` cost in US dollars, when the model's price was known.
 */
cost: number | null, durationMs: number, toolCalls: number, toolErrors: number, 
/**
 * Vault paths the task changed (the ones `undo_task` restores).
 */
changedPaths: Array<string>, 
/**
 * How many times the history was condensed.
 */
condensations: number, 
/**
 * The recipe whose fast path answered, when one did (the chat marks the answer with it).
 */
fastPath?: RecipeUse | null, 
/**
 * How full the model's context was after the task's last call.
 */
context?: ContextUse | null, };

/**
 * A recipe as the chat names it: which one, the request it was learned from, its record.
 */
export type RecipeUse = { id: string, request: string, successes: number, failures: number, };

/**
 * How full a model's context is after a call: the tokens of its request and answer (what the
 * next request holds at least) against the window the task keeps to, which the history is
 * condensed before it fills.
 */
export type ContextUse = { tokens: number, window: number, };

/**
 * One iteration: a model call and the tool calls it asked for.
 */
export type StepReport = { step: number, 
/**
 * From sending the request to the end of the stream.
 */
modelLatencyMs: number, 
/**
 * Time to the first streamed event.
 */
firstTokenMs?: number | null, usage: Usage, stopReason?: StopReason | null, toolCalls: Array<ToolCallReport>, };

/**
 * One tool call's metrics.
 */
export type ToolCallReport = { callId: string, tool: string, 
/**
 * The call's index within the task (the same index names its externalized file).
 */
index: number, latencyMs: number, 
/**
 * Size of the full result, before any externalization.
 */
resultChars: number, 
/**
 * The error sent back to the model, if the call failed or was refused.
 */
error?: string | null, 
/**
 * Where the full result was written, when it was too large for the history.
 */
externalized?: string | null, 
/**
 * The call as the user reads it (a saved chat shows its cards from this).
 */
label?: CallLabel | null, 
/**
 * How it ended, in the user's terms.
 */
outcome: ToolOutcome, 
/**
 * The report of the sub-task the call started (`new_task`): its steps, its usage (already
 * counted in this run's), its end.
 */
subtask?: RunReport | null, };

/**
 * Why the model stopped.
 */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | { "other": string };

/**
 * How the model gets media: whether it sees images and reads PDFs itself.
 */
export type MediaSupport = { images: boolean, documents: boolean, };

/**
 * One server. In JSON the fields are camelCase, like the plugin's other settings.
 */
export type McpServerConfig = { 
/**
 * The name its tools are known by: `mcp__<name>__<tool>`. Letters, digits, `-` and `_`.
 */
name: string, transport: McpServerTransport, 
/**
 * Off: the server is not started and its tools are not offered.
 */
enabled: boolean, 
/**
 * Tools of this server the user turned off, by the server's names for them.
 */
disabledTools: Array<string>, 
/**
 * The user trusts this server's `readOnlyHint`: tools it marks read-only run without
 * asking. Off by default: a hint is the server's claim, not a promise.
 */
trustReadOnly: boolean, };

/**
 * How the server is reached.
 */
export type McpServerTransport = { "type": "http", url: string, headers: Array<[string, string]>, credentials?: McpCredentials, } | { "type": "stdio", command: string, args: Array<string>, env: Array<[string, string]>, };

/**
 * What the host keeps for a server the user signed in to: the tokens, and what renewing them
 * takes. In JSON the fields are camelCase.
 */
export type McpCredentials = { accessToken: string, refreshToken?: string, 
/**
 * When the access token ends, in ms since the epoch; absent when the server did not say.
 */
expiresAt?: number, 
/**
 * The scope the server granted (or was asked for, when it did not say).
 */
scope?: string, client: OAuthClient, tokenEndpoint: string, 
/**
 * The authorization server that issued them.
 */
issuer: string, 
/**
 * The MCP server they are for.
 */
resource: string, 
/**
 * The scope a request was refused for want of (a `403` with `insufficient_scope`: the
 * server steps up what it asks for); the next sign-in asks for it as well.
 */
stepUpScope?: string, };

/**
 * Vault Agent as the authorization server registered it.
 */
export type OAuthClient = { clientId: string, clientSecret?: string, 
/**
 * How the client proves itself at the token endpoint (`none`, `client_secret_basic`,
 * `client_secret_post`).
 */
authMethod: string, };

/**
 * An app the user registered with an authorization server that registers none itself (no
 * dynamic client registration: GitHub's, say): its client ID, and its secret when it has one.
 */
export type OAuthApp = { clientId: string, clientSecret?: string, };

/**
 * A sign-in under way: `url` is the page to open in the user's browser; the rest is what
 * [`finish_sign_in`] needs when the browser comes back to `redirect_uri`. Held by the host
 * until then, not kept.
 */
export type McpSignIn = { url: string, state: string, codeVerifier: string, redirectUri: string, client: OAuthClient, tokenEndpoint: string, issuer: string, 
/**
 * Whether the answer must carry `iss` (RFC 9207: the server said it sends it).
 */
issuerInAnswer: boolean, resource: string, scope?: string, };

/**
 * A prompt and the server that offers it.
 */
export type ServerPrompt = { 
/**
 * The server's name, as the user gave it.
 */
server: string, name: string, title: string | null, description: string | null, arguments: Array<PromptArgument>, };

/**
 * A prompt a server offers (`prompts/list`): a request the user can start from, with the
 * values it asks for.
 */
export type McpPromptInfo = { name: string, title: string | null, description: string | null, arguments: Array<PromptArgument>, };

/**
 * A value a prompt asks for.
 */
export type PromptArgument = { name: string, title: string | null, description: string | null, required: boolean, };

/**
 * A resource and the server that offers it, as the chat's `@` picker lists it.
 */
export type ServerResource = { 
/**
 * The server's name, as the user gave it.
 */
server: string, 
/**
 * How a message attaches it ([`resource_attachment`]).
 */
attachment: string, uri: string, name: string, title: string | null, description: string | null, mimeType: string | null, 
/**
 * The size in bytes, if the server knows it.
 */
size: number | null, };

/**
 * A resource a server offers (`resources/list`): data read by its URI, such as a file, a
 * page or a record of the service the server fronts.
 */
export type McpResourceInfo = { uri: string, name: string, title: string | null, description: string | null, mimeType: string | null, 
/**
 * The size in bytes, if the server knows it.
 */
size: number | null, };

/**
 * One tool a server offers, as `tools/list` describes it.
 */
export type McpToolInfo = { name: string, title: string | null, description: string | null, 
/**
 * The JSON Schema of the arguments.
 */
inputSchema: unknown, annotations: ToolAnnotations | null, };

/**
 * What a server offers, as the settings' test shows it: its tools, and how many prompts and
 * resources beside them.
 */
export type McpOffer = { tools: Array<McpToolInfo>, prompts: number, resources: number, };

/**
 * A server's hints about a tool. Hints, not promises: only the user's trust in the server
 * lets one skip an approval.
 */
export type ToolAnnotations = { readOnlyHint: boolean | null, destructiveHint: boolean | null, openWorldHint: boolean | null, };

/**
 * What to do with a path that changed since the task left it.
 */
export type UndoChoice = "keep_mine" | "restore" | "save_copy";

/**
 * A path that changed since the task left it.
 */
export type UndoConflict = { path: string, 
/**
 * Why it is a conflict, in words.
 */
reason: string, 
/**
 * Later tasks that changed the path (or a folder above it), oldest first.
 */
laterTasks: Array<string>, 
/**
 * What the path held before the task: `file`, `folder` or `absent`.
 */
before: string, 
/**
 * What it holds now.
 */
now: string, 
/**
 * The choices that apply here (`save_copy` only where a file was there before).
 */
choices: Array<UndoChoice>, 
/**
 * The name the copy would get with `save_copy`.
 */
copyPath?: string | null, };

/**
 * A path left as it is, and why.
 */
export type KeptPath = { path: string, reason: string, };

/**
 * A pre-task version written beside the path the user kept.
 */
export type SavedCopy = { path: string, copy: string, };

/**
 * What an undo would do, before it does anything.
 */
export type UndoPlan = { taskId: string, 
/**
 * Paths that get their pre-task state back (files, moved files, folders).
 */
restore: Array<string>, 
/**
 * Paths the task created, to go to the trash (a folder only once it is empty).
 */
remove: Array<string>, 
/**
 * Paths that already are as before the task.
 */
unchanged: Array<string>, 
/**
 * Paths changed since the task left them: nothing happens to them unless chosen.
 */
conflicts: Array<UndoConflict>, 
/**
 * Folders the task created that will stay, because they hold files it did not create.
 */
kept: Array<KeptPath>, };

/**
 * What an undo did.
 */
export type UndoReport = { taskId: string, 
/**
 * Files given their pre-task bytes back (or moved back to where they were).
 */
restored: Array<string>, 
/**
 * Folders created again.
 */
recreatedFolders: Array<string>, 
/**
 * Files and (empty) folders the task created, moved to the trash.
 */
trashed: Array<string>, 
/**
 * Paths that already were as before the task.
 */
unchanged: Array<string>, 
/**
 * Paths left as they are, each with why: changed since the task, or a folder holding
 * files the task did not create.
 */
kept: Array<KeptPath>, 
/**
 * Pre-task versions saved beside a kept file.
 */
copies: Array<SavedCopy>, 
/**
 * Paths that could not be restored, with the reason. The others were restored anyway.
 */
failed: Array<[string, string]>, 
/**
 * The checkpoint of the state just before the undo: [`redo_task`] applies it.
 */
undoCheckpoint: string, };

/**
 * What a task's checkpoint holds, for the UI's list of undoable tasks.
 */
export type CheckpointSummary = { taskId: string, createdMs: number, 
/**
 * Paths the task changed.
 */
paths: Array<string>, undoneMs?: number | null, };

/**
 * One thing the agent remembers.
 */
export type MemoryEntry = { 
/**
 * Stable within the store (`m1`, `m2`, …); what `edit` and `delete` name.
 */
id: string, kind: MemoryKind, 
/**
 * One line.
 */
text: string, 
/**
 * When it was saved (ms since the epoch; 0: unknown, for entries migrated from `facts.md`).
 */
createdMs: number, 
/**
 * The task that saved it, if one did.
 */
taskId?: string | null, };

/**
 * What an entry says something about.
 */
export type MemoryKind = "fact" | "preference";

/**
 * US dollars per million tokens.
 */
export type ModelPrice = { 
/**
 * Uncached input.
 */
input: number, output: number, 
/**
 * Input read from the prompt cache.
 */
cacheRead: number, 
/**
 * Input written to the prompt cache.
 */
cacheWrite: number, };

/**
 * What a connection check found.
 */
export type ConnectionCheck = { 
/**
 * The model answered.
 */
ok: boolean, 
/**
 * The model id that was asked.
 */
model: string, 
/**
 * From sending the request to the end of the answer.
 */
latencyMs: number, 
/**
 * To the first streamed event, when there was one.
 */
firstTokenMs?: number | null, 
/**
 * The start of the model's answer.
 */
reply: string, usage: Usage, 
/**
 * Why it failed, categorised (auth, rate limit, network, …).
 */
error?: ProviderError | null, 
/**
 * The same failure for a person: plain words, the provider's own, the setting to check.
 */
problem?: ProviderProblem | null, 
/**
 * The context window a server on this machine serves the model with, where it says
 * (Ollama, LM Studio).
 */
servedWindow?: number | null, 
/**
 * Why that window is too small for the agent, and how to give more.
 */
servedWarning?: string | null, 
/**
 * How calls to the model must be made differently, for the user choosing it: its tools
 * described in the prompt (the server refused them), its answers not streamed.
 */
notice?: string | null, };

/**
 * A model the server offers.
 */
export type ModelInfo = { 
/**
 * What a request names it by (the settings' *Model*).
 */
id: string, 
/**
 * The server's name for it, when it gives one other than the id.
 */
name?: string | null, 
/**
 * Its context window in tokens, when the server says (OpenRouter does).
 */
contextWindow?: number | null, 
/**
 * US dollars per million tokens: the server's own price (OpenRouter's list has them), or
 * the list price the cost meter would use; free on this machine; absent when unknown.
 */
price?: ModelPrice | null, 
/**
 * Whether the model calls tools itself, where the server says (OpenRouter's
 * `supported_parameters`, Ollama's `/api/show`); one that does not gets them described in
 * the prompt.
 */
tools?: boolean | null, };

/**
 * What asking the server for its models found: the models, or why there are none.
 */
export type ModelList = { 
/**
 * Chat models, newest first where the server dates them, in the server's order otherwise.
 */
models: Array<ModelInfo>, 
/**
 * Why the list could not be had, in plain words and the provider's own.
 */
problem?: ProviderProblem | null, };

/**
 * A conversation as saved: its history (what the model sees when it continues) and the tasks
 * it ran (for their reports and undo buttons).
 */
export type SavedChat = { 
/**
 * Empty for a chat not saved yet: [`save_chat`] gives it one.
 */
id: string, 
/**
 * Empty: the first line of the first message.
 */
title: string, createdMs: number, updatedMs: number, 
/**
 * The mode the chat ran in last.
 */
mode: string, messages: Array<Message>, tasks: Array<ChatTask>, };

/**
 * A task a chat ran.
 */
export type ChatTask = { 
/**
 * Where the task's request is in [`SavedChat::messages`].
 */
messageIndex: number, report: RunReport, 
/**
 * Whether the user undid it.
 */
undone: boolean, };

/**
 * A line of the chat history list.
 */
export type ChatSummary = { id: string, title: string, updatedMs: number, 
/**
 * How many requests the user made in it (tool results and the model's turns not counted).
 */
requests: number, };

/**
 * A saved chat that holds every word of a search.
 */
export type ChatMatch = { chat: ChatSummary, 
/**
 * Where the words were said; `None` for an empty search, or when only the title holds them.
 */
passage: ChatPassage | null, };

/**
 * The passage of a chat that holds the most of a search's words.
 */
export type ChatPassage = { 
/**
 * The turn of the chat's transcript it is in (to scroll to).
 */
turn: number, by: Speaker, 
/**
 * One line of text, the words found marked `**…**` (the text's own `**` left out), with
 * `…` where it is cut.
 */
text: string, };

/**
 * Who said a passage.
 */
export type Speaker = "you" | "agent";

/**
 * A chat, turn by turn.
 */
export type Transcript = { 
/**
 * The saved chat's id; empty for a chat not saved.
 */
chatId: string, title: string, turns: Array<TranscriptTurn>, };

/**
 * A request and what the agent did for it.
 */
export type TranscriptTurn = { 
/**
 * None only for steps before any request (a history that starts with an answer).
 */
request: ChatRequest | null, 
/**
 * The answer's text, thinking and tool calls, in order.
 */
steps: Array<TranscriptStep>, 
/**
 * The tasks run for the request, oldest first: a retried request lists its earlier
 * attempts (their changes stay undoable) before the one whose steps these are.
 */
tasks: Array<ChatTask>, 
/**
 * The steps are a task's that stopped before it ended (the app closed) and is to be
 * resumed: every task listed is an earlier attempt.
 */
interrupted: boolean, };

/**
 * What the user asked: the text they typed and the notes they attached.
 */
export type ChatRequest = { text: string, 
/**
 * Vault paths of the attached notes, images and PDFs.
 */
attachments: Array<string>, };

/**
 * One piece of an answer.
 */
export type TranscriptStep = { "type": "text", text: string, } | { "type": "thinking", thinking: string, } | { "type": "tool", callId: string, name: string, input: unknown, 
/**
 * The call in words ("Read *Bread*"), from the task's report or else the arguments.
 */
label: CallLabel | null, 
/**
 * None while the call has no result (the task stopped before it ran).
 */
outcome: ToolOutcome | null, 
/**
 * What the model was told.
 */
result: string | null, isError: boolean, 
/**
 * The sub-task a `new_task` call ran.
 */
subtask: RunReport | null, };

/**
 * A line of the list of interrupted tasks.
 */
export type InterruptedTask = { taskId: string, chatId: string | null, 
/**
 * The request's first line.
 */
title: string, updatedMs: number, steps: number, 
/**
 * What the task was waiting for approval of (the request's summary).
 */
waitingFor: string | null, 
/**
 * Why it cannot be resumed (another version, a damaged file); it can still be discarded.
 */
problem: string | null, };

/**
 * What an inline edit did.
 */
export type InlineEditReport = { 
/**
 * The task the write belongs to (its checkpoint and log; undone like any task).
 */
taskId: string, outcome: InlineEditOutcome, 
/**
 * What to tell the user.
 */
message: string, 
/**
 * What the model wrote in place of the selection, when it answered.
 */
replacement?: string, usage: Usage, };

/**
 * How an inline edit ended.
 */
export type InlineEditOutcome = "applied" | "rejected" | "conflict" | "failed";

/**
 * One result.
 */
export type SearchHit = { 
/**
 * Vault-relative path.
 */
path: string, title: string, 
/**
 * BM25 score (higher is better; comparable within one search only).
 */
score: number, 
/**
 * Up to ~200 characters of the note's text around the best match, on one line, matched
 * words wrapped in `**…**` (Markdown bold). Empty when snippets were not asked for.
 */
snippet: string, 
/**
 * The heading path (`A › B`) of the section the snippet comes from, if any.
 */
heading: string | null, };

/**
 * A search request. `text` uses the query language in [`crate::search`]'s docs.
 */
export type SearchQuery = { text: string, 
/**
 * At most this many hits (default 10).
 */
limit: number, 
/**
 * Hits to skip first, for paging.
 */
offset: number, 
/**
 * Only notes in this folder or below it.
 */
folder: string | null, 
/**
 * Only notes with all of these tags (a tag also matches tags nested under it).
 */
tags: Array<string>, 
/**
 * Only notes whose path starts with this.
 */
pathPrefix: string | null, 
/**
 * Whether to compute snippets (default true).
 */
snippets: boolean, 
/**
 * Snippets for the first this many hits only (`None`: for every hit). A hybrid search ranks
 * more full-text candidates than it shows, and snippets are most of a search's cost.
 */
snippetLimit: number | null, 
/**
 * The user's language (`en`, `pt-BR`), preferred when the query's own words do not say
 * which language it is in (see [`crate::search::LanguagePreference`]). `None`: no preference
 * beyond the query's.
 */
language: string | null, };

/**
 * What [`SearchIndex::load_or_build`] did.
 */
export type LoadOutcome = { "kind": "loaded" } | { "kind": "built", reason: LoadProblem, };

/**
 * Why a persisted index was not used.
 */
export type LoadProblem = { "kind": "missing" } | { "kind": "stale", "detail": string } | { "kind": "corrupt", "detail": string };

/**
 * A file as the host lists it, with its modification date: what [`SharedIndex::catch_up`]
 * compares the index with (the plugin sends Obsidian's file list, `TFile.stat.mtime`).
 */
export type DatedNote = { 
/**
 * Vault-relative path.
 */
path: string, 
/**
 * Last modified, in milliseconds since the epoch.
 */
mtime: number, };

/**
 * A note related to another, and why.
 */
export type RelatedNote = { path: string, title: string, 
/**
 * Higher is closer; comparable within one answer only.
 */
score: number, 
/**
 * Why, in a few words: `links here`, `linked from here`, `2 shared tags`, `similar text`.
 */
reasons: Array<string>, };

/**
 * Which signals found a hit, and where each ranked it (1 = first).
 */
export type Signals = { fulltext: number | null, semantic: number | null, 
/**
 * Reached through a wikilink from (or to) this hit.
 */
linkedFrom: string | null, };

/**
 * One fused result.
 */
export type HybridHit = { path: string, title: string, score: number, heading: string | null, snippet: string, foundBy: Signals, };

/**
 * A hybrid search request.
 */
export type HybridQuery = { text: string, limit: number, mode: SearchMode, fusion: Fusion, 
/**
 * Add notes one wikilink away from the top hits (scored below the hit they hang off).
 */
expandLinks: boolean, folder: string | null, 
/**
 * The user's language, preferred when the query's words do not say theirs (see
 * [`crate::search::LanguagePreference`]).
 */
language: string | null, };

/**
 * Which signals a search uses.
 */
export type SearchMode = "fulltext" | "semantic" | "hybrid";

/**
 * How two ranked lists become one. The `covered`, `confident` and `rank_covered` fusions also
 * read how much of the query each full-text hit holds ([`SearchIndex::coverage`]): a hit that
 * matched only the query's common words says little, whatever its rank.
 */
export type Fusion = { "kind": "rrf", k: number, } | { "kind": "weighted", dense: number, } | { "kind": "dense_first", bm25: number, } | { "kind": "covered", dense: number, power: number, } | { "kind": "confident", dense: number, } | { "kind": "rank_covered", k: number, dense: number, } | { "kind": "blend", k: number, dense: number, };

/**
 * What one run of the job did.
 */
export type EmbedReport = { 
/**
 * Notes in the vault.
 */
notes: number, 
/**
 * Notes (re-)embedded by this run.
 */
embeddedNotes: number, 
/**
 * Chunks embedded by this run.
 */
chunks: number, 
/**
 * Notes whose vectors were dropped because the note is gone.
 */
removed: number, cancelled: boolean, 
/**
 * Bytes written by the last save (0: the vectors had not changed, nothing was written).
 */
savedBytes: number, };

/**
 * What the embedding job is doing (for a progress bar).
 */
export type EmbedStatus = { running: boolean, 
/**
 * Notes looked at / in the vault.
 */
done: number, total: number, 
/**
 * Chunks embedded by this run.
 */
chunks: number, 
/**
 * Notes whose vectors this run made.
 */
embeddedNotes: number, cancelled: boolean, error: string | null, };

/**
 * Which embedder to use.
 */
export type EmbedderOptions = { "kind": "static", precision?: Precision, 
/**
 * Queries read by MiniLM into the static model's space (`MiniLmQueries`): the notes keep
 * the static model's vectors, searches by meaning find more. Needs MiniLM and the query
 * map installed (`installModel({model: "minilm-queries"})`).
 */
minilmQueries?: boolean, } | { "kind": "minilm", 
/**
 * Tokens of a chunk the model reads (default 256).
 */
maxTokens?: number, precision?: Precision, 
/**
 * Workers of its own (0, the default: in the core's thread).
 */
workers?: number, } | { "kind": "api", precision?: Precision, 
/**
 * The URL before `/embeddings`, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`.
 */
baseUrl: string, model: string, apiKey?: string, 
/**
 * The vectors' width, if known; otherwise learnt from the first answer.
 */
dimensions?: number, retry?: RetryPolicy, };

/**
 * The embedder `setEmbedder` set up.
 */
export type EmbedderSet = { 
/**
 * The model's id (vectors saved by another are dropped).
 */
id: string, dimensions: number, 
/**
 * MiniLM workers running (0: in the core's thread).
 */
workers: number, 
/**
 * Why MiniLM's workers could not start, when it fell back to the core's thread.
 */
workersFailed: string | null, };

/**
 * Where and what to ask (camelCase in the plugin's settings).
 */
export type ApiEmbedderConfig = { 
/**
 * The URL before `/embeddings`, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`.
 */
baseUrl: string, model: string, apiKey?: string, 
/**
 * The vectors' width, if known; otherwise learnt from the first answer.
 */
dimensions?: number, retry?: RetryPolicy, };

/**
 * How rows are stored. Int8 is the default: a quarter of the memory and of the saved file, the
 * same retrieval quality on our query sets, and the fastest scoring in the browser
 * (BENCHMARKS.md). An index keeps the precision it was saved with until it is rebuilt.
 */
export type Precision = "f32" | "int8";

/**
 * `installModel`'s options.
 */
export type InstallOptions = { 
/**
 * `"static"`, `"minilm"` or `"minilm-queries"` (MiniLM and the map that reads its query
 * vectors into the static model's space).
 */
model: string, 
/**
 * A mirror: replaces the model's source.
 */
baseUrl?: string, 
/**
 * The plugin's `package.json` `{repository, version}`: where the static model is published.
 */
release?: PluginRelease, };

/**
 * The plugin's published release: its repository and version, as `package.json` states them
 * (the one place they are written). The static model is one of its assets.
 */
export type PluginRelease = { 
/**
 * `https://github.com/<owner>/<repo>` (also `git+https://….git`, `github:<owner>/<repo>` or
 * `<owner>/<repo>`, as npm accepts them).
 */
repository: string | { url: string }, version: string, };

/**
 * What is kept of finished tasks' checkpoints and audit logs.
 */
export type RetentionPolicy = { 
/**
 * A task older than this (by its newest file) is pruned. 0: no age limit.
 */
maxAgeDays: number, 
/**
 * Only the newest this many tasks are kept. 0: no count limit.
 */
maxTasks: number, };

/**
 * The API a provider speaks.
 */
export type ProviderKind = "anthropic" | "openai" | "openai-compatible";

/**
 * Everything needed to build a provider. Serialised in camelCase for the plugin's settings:
 * `{"kind": "anthropic", "model": "claude-sonnet-4-5", "apiKey": "…", "maxTokens": 8192}`.
 */
export type ProviderConfig = { kind: ProviderKind, 
/**
 * The model id sent to the API.
 */
model: string, 
/**
 * Where the API lives; [`ProviderKind::default_base_url`] when absent.
 */
baseUrl?: string | null, 
/**
 * Required for Anthropic and OpenAI; optional for compatible servers.
 */
apiKey?: string | null, 
/**
 * The output limit the loop asks for unless it has a reason to ask for another.
 */
maxTokens: number, 
/**
 * Headers added to every request (OpenRouter's `HTTP-Referer` and `X-Title`, a proxy's
 * auth).
 */
headers?: { [key in string]: string }, 
/**
 * For models without native tool calling: describe the tools in the system prompt and
 * read calls from the text in this dialect.
 */
textToolDialect?: TextToolDialect | null, 
/**
 * OpenAI-compatible only: send earlier reasoning back as `reasoning_content`. DeepSeek's
 * and Moonshot's APIs get it whatever this says (their thinking models refuse a tool
 * call's follow-up without it).
 */
echoReasoning: boolean, 
/**
 * Whether the model sees images; when absent, known from the model's name
 * ([`ProviderConfig::sees_images`]).
 */
vision?: boolean | null, 
/**
 * OpenAI and compatible servers: which of OpenAI's APIs to speak; when absent, the
 * Responses API to OpenAI's own (`api.openai.com`), Chat Completions to every other server
 * ([`ProviderConfig::openai_api`]).
 */
api?: OpenAiApi | null, retry: RetryPolicy, };

/**
 * Which of OpenAI's APIs a provider speaks.
 */
export type OpenAiApi = "chat-completions" | "responses";

/**
 * How tool calls are written in text.
 */
export type TextToolDialect = "fenced-json" | "bracket-tag" | "xml-invoke";

/**
 * Exponential backoff with jitter. Attempt `n` (from 1) that fails with a retryable error is
 * followed by a wait of `min(max_delay, base_delay · 2^(n-1))`, lengthened by up to
 * `jitter` of itself (then capped at `max_delay_ms` again) so that clients that failed together do not
 * retry together. A `Retry-After` from the server replaces the computed wait; one longer
 * than `max_retry_after_ms` is not waited out: the error goes to the caller, which can
 * tell the user.
 *
 * The defaults: 6 attempts, waits of 0.5, 1, 2, 4 and 8 s (+ up to 25 %), never more than
 * 32 s; Retry-After honoured up to 60 s.
 */
export type RetryPolicy = { 
/**
 * Attempts in all, the first included. 1 means no retry.
 */
maxAttempts: number, baseDelayMs: number, maxDelayMs: number, 
/**
 * The largest fraction of a computed wait added at random, 0 to 1.
 */
jitter: number, maxRetryAfterMs: number, 
/**
 * A response that sends no byte for this long is dropped and counts as a network error
 * (retryable before the first output, like a dropped connection). 0: wait forever.
 */
idleTimeoutMs: number, };

/**
 * How a task runs. Every field has a default (the reference design's), so hosts may pass a
 * partial object. In JSON the fields are camelCase, like the plugin's other settings.
 */
export type AgentConfig = { 
/**
 * Model calls at most; the hard stop.
 */
maxIterations: number, 
/**
 * At this share of `max_iterations` (in %), the model is told to wrap up.
 */
softLimitPercent: number, 
/**
 * After this many failing steps in a row, the loop-breaker runs.
 */
consecutiveMistakeLimit: number, 
/**
 * At least this long between two model requests (0: no limit).
 */
rateLimitMs: number, condensingEnabled: boolean, 
/**
 * Condense the history above this share (in %) of `context_window`.
 */
condensingThreshold: number, 
/**
 * Remind the model of its mode every N steps (0: never).
 */
powerSteeringFrequency: number, 
/**
 * How deep this task is nested in subtasks (0: a user's task).
 */
depth: number, maxSubtaskDepth: number, 
/**
 * The model's answer length limit per call.
 */
maxTokens: number, 
/**
 * The model's context window in tokens; 0: the window of the model each call goes to
 * ([`AgentConfig::context_window_for`]).
 */
contextWindow: number, 
/**
 * Context windows the provider's server reported, by model id (the plugin keeps those of
 * the models picked from the server's list).
 */
modelWindows: Record<string, number>, 
/**
 * Extended-thinking budget, for models that support it.
 */
thinkingBudget: number | null, 
/**
 * Sampling temperature for the task's own model calls; `None`: the provider's default.
 * Anthropic ignores it while extended thinking is on (it requires the default).
 */
temperature: number | null, 
/**
 * A tool call is stopped after this long (0: never).
 */
toolTimeoutMs: number, 
/**
 * Tool results longer than this (in characters) are externalized.
 */
externalizeThreshold: number, 
/**
 * Categories of tool call that run without asking.
 */
autoApprove: Array<ApprovalCategory>, 
/**
 * The mode's slug (`ask`, `agent`, or a custom mode).
 */
mode: string, 
/**
 * The user's own instructions, added to every task's prompt.
 */
customInstructions: string, 
/**
 * Before condensing, ask the model for durable facts and save them to memory.
 */
memoryFlush: boolean, 
/**
 * After a task that completed, one short model call saves the durable facts and
 * preferences of the conversation to memory.
 */
memoryExtraction: boolean, 
/**
 * A request that matches a recipe with enough successes takes its fast path: one planning
 * call, the plan through the pipeline, one or two final turns.
 */
fastPath: boolean, 
/**
 * What the model costs, for the meter (`StepFinished.cost`, `RunReport.cost`): the user's
 * price; `None`: the price of the model the task calls, as its provider knows it (the list
 * price, free on the user's machine), or no cost for a model off the list.
 */
price: ModelPrice | null, 
/**
 * Tool calls a task may make in all; past it the task ends (`EndReason::ToolBudget`)
 * after one last answer. 0: no budget.
 */
maxToolCalls: number, 
/**
 * Tool calls one step may make; the model is told the rest were not run. 0: no limit.
 */
maxToolCallsPerStep: number, 
/**
 * The task stops this long after it started (`EndReason::Deadline`). 0: no deadline.
 */
deadlineMs: number, 
/**
 * Domains `web_fetch` reads without asking (a domain also covers its subdomains).
 */
webAllow: Array<string>, 
/**
 * Domains `web_fetch` never reads, allow-listed or not.
 */
webDeny: Array<string>, 
/**
 * The search engine `web_search` asks; `None`: the tool is not offered.
 */
webSearch: WebSearchConfig | null, 
/**
 * The defences against prompt injection (each can be turned off).
 */
guard: GuardConfig, };

/**
 * The defences against prompt injection, each a setting; all on by default. See
 * [`crate::guard`].
 */
export type GuardConfig = { 
/**
 * Results of tools that read others' words (notes, web, MCP) reach the model between
 * per-task random markers, which the prompt says never carry instructions.
 */
untrustedMarking: boolean, 
/**
 * A per-task token in the prompt; a call or answer that holds it stops the task.
 */
canary: boolean, 
/**
 * A web or MCP call whose arguments hold an API key or token stops the task.
 */
secrets: boolean, 
/**
 * More writes and deletions than this within `write_rate_window_s` stop the task (0: off).
 */
writeRateLimit: number, writeRateWindowS: number, 
/**
 * A model call reads each web and MCP result for injected instructions before the main
 * model does (one more call per such result; off by default).
 */
screening: boolean, 
/**
 * The model that screens (a cheap one); `None`: the task's own.
 */
screeningModel: string | null, };

/**
 * The search engine `web_search` asks, as the user set it up.
 */
export type WebSearchConfig = { "engine": "brave", apiKey: string, } | { "engine": "tavily", apiKey: string, } | { "engine": "searxng", baseUrl: string, };

/**
 * What the settings' test of a search engine found.
 */
export type WebSearchCheck = { ok: boolean, 
/**
 * What to show: how many results a test query gave, or what went wrong.
 */
message: string, };

/**
 * A mode: a name, the role text the model gets, the tool groups it grants, and optionally a
 * model of its own. The mode's tools are the only ones sent to the model and the only ones
 * the pipeline allows. Users define their own in the plugin's settings.
 */
export type Mode = { slug: string, name: string, role: string, groups: Array<ToolGroup>, 
/**
 * A model id to use in this mode instead of the provider's default.
 */
model?: string | null, };

/**
 * The groups a mode grants tools by.
 */
export type ToolGroup = "read" | "search" | "edit" | "agent" | "mcp" | "web";

/**
 * How model requests travel.
 */
export type Transport = "auto" | "fetch" | "request";

/**
 * What the prompt says about the vault.
 */
export type VaultInfo = { name: string, noteCount: number | null, 
/**
 * The note open in the editor, if any.
 */
activeNote: string | null, 
/**
 * Obsidian's settings folder (`app.vault.configDir`); none: `.obsidian`.
 */
configDir: string | null, 
/**
 * The app's language for dates (`moment.locale()`: `en`, `de`…); none: English.
 */
locale: string | null, };

/**
 * What the plugin's `VaultCore.newChat` takes: the provider, and optionally the agent's
 * settings, the vault, the user's modes, the transport and the saved chat to continue (each
 * left out takes its default; without a chat id, the chat is saved as a new one).
 */
export type ChatOptions = { provider: ProviderConfig, agent: AgentConfig, vault: VaultInfo, 
/**
 * The user's own modes; `agent.mode` may name one of them.
 */
modes: Array<Mode>, 
/**
 * How model requests travel (`auto`, `fetch`, `request`).
 */
transport: Transport, 
/**
 * The saved chat this continues: the core reads its history and saves it after every task.
 */
chatId: string | null, 
/**
 * MCP servers whose tools the chat's tasks offer (the enabled ones, with their tokens).
 */
mcpServers: Array<McpServerConfig>, 
/**
 * The vault's folder on disk, where there is one (desktop): told to MCP servers on this
 * machine as the folder they may work in (MCP's roots).
 */
vaultPath: string | null, };

/**
 * An inline edit, as the editor asks for it.
 */
export type InlineEditRequest = { 
/**
 * The note's vault path.
 */
path: string, 
/**
 * Where the selection starts and ends, counted as the editor counts (UTF-16 code units).
 */
from: number, to: number, 
/**
 * The selected text, as the editor shows it: the note must hold it there.
 */
selection: string, 
/**
 * What to do with the selection ("make it shorter").
 */
instruction: string, };

/**
 * Where the cursor is, as the editor asks for a suggestion.
 */
export type SuggestRequest = { 
/**
 * The note's vault path.
 */
path: string, 
/**
 * The note's text before the cursor, as the editor shows it (the core keeps its last
 * [`SUGGEST_BEFORE_CHARS`]).
 */
before: string, 
/**
 * The note's text after the cursor (the core keeps its first [`SUGGEST_AFTER_CHARS`]).
 */
after: string, };

/**
 * What asked for a model call.
 */
export type CallPurpose = "chat" | "suggestions" | "inlineEdit";

/**
 * The model calls made for one purpose.
 */
export type Spend = { purpose: CallPurpose, 
/**
 * Calls started, stopped ones included.
 */
requests: number, 
/**
 * The tokens the servers reported (a call stopped before its end reports what it had, or
 * nothing).
 */
usage: Usage, 
/**
 * What they cost in US dollars, at the user's price or each model's; `None` once a call's
 * model had no known price.
 */
cost: number | null, };

/**
 * A provider by name.
 */
export type ProviderPreset = "anthropic" | "openai" | "azure" | "gemini" | "mistral" | "deepseek" | "xai" | "groq" | "openrouter" | "ollama" | "lmstudio" | "custom";

/**
 * What a [`ProviderPreset`] stands for.
 */
export type PresetInfo = { 
/**
 * As the settings list it.
 */
name: string, kind: ProviderKind, 
/**
 * Empty for [`ProviderPreset::Custom`]: the user gives it.
 */
baseUrl: string, 
/**
 * The model used when the user names none (empty: they must).
 */
defaultModel: string, needsKey: boolean, 
/**
 * Where a user gets a key (empty where none is needed).
 */
keyUrl: string, 
/**
 * Headers the service asks every request to carry.
 */
headers: { [key in string]: string }, 
/**
 * What the settings say of the *Model* field, where the generic words would mislead (empty:
 * they do not).
 */
modelHelp: string, 
/**
 * What the settings say of the *Base URL* field, for a preset whose base URL is the user's
 * own (empty: the generic words).
 */
baseUrlHelp: string, 
/**
 * The address that field shows as an example (empty: a local server's).
 */
baseUrlExample: string, };

export const PRESETS: Record<ProviderPreset, PresetInfo> = {
  "anthropic": {"name":"Anthropic","kind":"anthropic","baseUrl":"https://api.anthropic.com","defaultModel":"claude-sonnet-4-5","needsKey":true,"keyUrl":"https://console.anthropic.com/settings/keys","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "openai": {"name":"OpenAI","kind":"openai","baseUrl":"https://api.openai.com/v1","defaultModel":"gpt-4.1","needsKey":true,"keyUrl":"https://platform.openai.com/api-keys","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "azure": {"name":"Azure OpenAI","kind":"openai-compatible","baseUrl":"","defaultModel":"","needsKey":true,"keyUrl":"https://portal.azure.com","headers":{},"modelHelp":"The name you gave the model's deployment (Azure AI Foundry → Deployments).","baseUrlHelp":"Your resource's endpoint, as the Azure portal shows it under Keys and Endpoint (a deployment's target URI works too).","baseUrlExample":"NAME.openai.azure.com"},
  "gemini": {"name":"Google Gemini","kind":"openai-compatible","baseUrl":"https://generativelanguage.googleapis.com/v1beta/openai","defaultModel":"gemini-flash-latest","needsKey":true,"keyUrl":"https://aistudio.google.com/apikey","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "mistral": {"name":"Mistral AI","kind":"openai-compatible","baseUrl":"https://api.mistral.ai/v1","defaultModel":"mistral-medium-latest","needsKey":true,"keyUrl":"https://console.mistral.ai/api-keys","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "deepseek": {"name":"DeepSeek","kind":"openai-compatible","baseUrl":"https://api.deepseek.com","defaultModel":"deepseek-chat","needsKey":true,"keyUrl":"https://platform.deepseek.com/api_keys","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "xai": {"name":"xAI (Grok)","kind":"openai-compatible","baseUrl":"https://api.x.ai/v1","defaultModel":"grok-4","needsKey":true,"keyUrl":"https://console.x.ai","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "groq": {"name":"Groq","kind":"openai-compatible","baseUrl":"https://api.groq.com/openai/v1","defaultModel":"openai/gpt-oss-120b","needsKey":true,"keyUrl":"https://console.groq.com/keys","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "openrouter": {"name":"OpenRouter","kind":"openai-compatible","baseUrl":"https://openrouter.ai/api/v1","defaultModel":"anthropic/claude-sonnet-4.5","needsKey":true,"keyUrl":"https://openrouter.ai/keys","headers":{"HTTP-Referer":"https://obsidian.md","X-Title":"Vault Agent"},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "ollama": {"name":"Ollama (local)","kind":"openai-compatible","baseUrl":"http://localhost:11434/v1","defaultModel":"qwen2.5","needsKey":false,"keyUrl":"","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "lmstudio": {"name":"LM Studio (local)","kind":"openai-compatible","baseUrl":"http://localhost:1234/v1","defaultModel":"","needsKey":false,"keyUrl":"","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
  "custom": {"name":"Custom (OpenAI-compatible)","kind":"openai-compatible","baseUrl":"","defaultModel":"","needsKey":false,"keyUrl":"","headers":{},"modelHelp":"","baseUrlHelp":"","baseUrlExample":""},
};
