// An MCP server made with the official TypeScript SDK whose tool asks the user for a form the
// way the SDK's own guide does: `server.elicitInput`, a request of the server's own, which the
// SDK sends on the session's GET stream rather than in the call's answer. Streamable HTTP on
// 127.0.0.1:$PORT/mcp; says "listening" on stderr once it listens. Used by tests/native/mcp.rs.
import { randomUUID } from "node:crypto";
import http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

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
