// What Mistral's API refuses in a Chat Completions request, as it refuses it: a field it does not
// know (HTTP 422, pydantic's "Extra inputs are not permitted"), a tool call id that is not nine
// letters and digits (HTTP 400), a user message right after a tool result (HTTP 400). The mock
// provider's "mistral" protocol (routes/mock_provider.mjs) answers with these before it streams,
// so a test at Mistral's address fails the way Mistral would. Not a route itself.

const TOP = new Set(["model", "messages", "temperature", "top_p", "max_tokens", "stream", "stop", "random_seed",
  "response_format", "tools", "tool_choice", "presence_penalty", "frequency_penalty", "n", "prediction",
  "parallel_tool_calls", "prompt_mode", "safe_prompt"]);
const MESSAGE = new Set(["role", "content", "tool_calls", "tool_call_id", "name", "prefix"]);
const ID = /^[a-zA-Z0-9]{9}$/;

const extra = (loc, input) => ({
  status: 422,
  body: { object: "error", message: { detail: [{ type: "extra_forbidden", loc, msg: "Extra inputs are not permitted", input }] },
    type: "invalid_request_error", param: null, code: null },
});
const refused = (message, type, code) => ({ status: 400, body: { object: "error", message, type, param: null, code } });
const badId = (id) => refused(`Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`, "invalid_function_call", "3280");

/** The refusal Mistral would answer `body` with, or null when it takes it. */
export function mistralRefusal(body) {
  for (const [key, value] of Object.entries(body ?? {})) if (!TOP.has(key)) return extra(["body", key], value);
  const messages = body.messages ?? [];
  for (const [i, m] of messages.entries()) {
    for (const [key, value] of Object.entries(m)) if (!MESSAGE.has(key)) return extra(["body", "messages", i, m.role, key], value);
    for (const call of m.tool_calls ?? []) if (!ID.test(call.id)) return badId(call.id);
    if (m.role === "tool" && !ID.test(m.tool_call_id)) return badId(m.tool_call_id);
    if (i > 0 && m.role === "user" && messages[i - 1].role === "tool") {
      return refused("Unexpected role 'user' after role 'tool'", "invalid_request_message_order", "3230");
    }
  }
  return null;
}
