// The reference "everything" MCP server over Streamable HTTP on loopback, as a test harness: it asks for a bearer
// token (TOKEN), listens on 127.0.0.1:PORT and prints "listening <port>". Its extra tool "grow" adds a tool named
// "grown", so the server tells its clients that its tools changed (notifications/tools/list_changed).
import http from "node:http";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createServer } from "@modelcontextprotocol/server-everything/dist/server/index.js";

const token = process.env.TOKEN;
const sessions = new Map();

function everything() {
  const { server } = createServer();
  server.registerTool("grow", { description: "Adds the tool 'grown'", inputSchema: {} }, async () => {
    server.registerTool("grown", { description: "A tool added later", inputSchema: { n: z.number().optional() } },
      async () => ({ content: [{ type: "text", text: "grown here" }] }));
    return { content: [{ type: "text", text: "grew" }] };
  });
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  if (req.headers["authorization"] !== `Bearer ${token}`) {
    res.writeHead(401, { "Content-Type": "text/plain" }).end("a bearer token is needed");
    return;
  }
  const id = req.headers["mcp-session-id"];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    if (id || req.method !== "POST") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("no such session");
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    await everything().connect(transport);
  }
  await transport.handleRequest(req, res);
});
httpServer.listen(Number(process.env.PORT || 0), "127.0.0.1", () => {
  console.log(`listening ${httpServer.address().port}`);
});
