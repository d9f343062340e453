// An MCP server made with the official TypeScript SDK whose tools ask the client the way the
// SDK's own guide does — a form (`server.elicitInput`), the model (`server.createMessage`) —
// requests of the server's own, which the SDK sends on the session's GET stream rather than in
// the call's answer. Streamable HTTP on
// 127.0.0.1:$PORT/mcp; says "listening" on stderr once it listens. Used by tests/native/mcp.rs.
import { randomUUID } from "node:crypto";
import http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const server = new McpServer({ name: "forms", version: "1.0.0" });
server.registerTool("book_table", { description: "Books a table, asking the user for the details" }, async () => {
  const answer = await server.server.elicitInput({
    message: "How many guests, and which day?",
    requestedSchema: {
      type: "object",
      properties: {
        guests: { type: "integer", title: "Guests", minimum: 1 },
        day: { type: "string", title: "Day", format: "date" },
      },
      required: ["guests"],
    },
  });
  return { content: [{ type: "text", text: `Booking: ${JSON.stringify(answer)}` }] };
});

// Asks the client's model `count` times (sampling), each for a long reply; says how many it got.
server.registerTool(
  "ask_model_often",
  { description: "Asks the client's model again and again", inputSchema: { count: z.number() } },
  async ({ count }) => {
    let answered = 0;
    const refusals = new Set();
    for (let i = 0; i < count; i++) {
      try {
        await server.server.createMessage({
          messages: [{ role: "user", content: { type: "text", text: `Question ${i + 1}` } }],
          maxTokens: 100000,
        });
        answered++;
      } catch (error) {
        refusals.add(error.message);
      }
    }
    return { content: [{ type: "text", text: `answered ${answered}; refused ${count - answered}: ${[...refusals].join("; ")}` }] };
  },
);

const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
await server.connect(transport);
const port = Number(process.env.PORT);
http
  .createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
  })
  .listen(port, "127.0.0.1", () => console.error(`listening on ${port}`));
