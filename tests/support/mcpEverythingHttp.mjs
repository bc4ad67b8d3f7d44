// The reference MCP server (@modelcontextprotocol/server-everything) over Streamable HTTP on
// 127.0.0.1 only (its own launcher listens on every interface). Prints {"port":N} once it
// listens. With MCP_EXPECT_AUTHORIZATION set, requests without exactly that Authorization
// header are refused with 401. With MCP_ALLOW_ORIGIN set, that origin may call it from a page
// (CORS: preflights answered, the session header exposed), as a browser tab's MCP client needs.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';

const expected = process.env.MCP_EXPECT_AUTHORIZATION;
const origin = process.env.MCP_ALLOW_ORIGIN;
const sessions = new Map();

const http = createHttpServer(async (req, res) => {
  if (origin) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version');
    if (req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
          'access-control-max-age': '600',
        })
        .end();
      return;
    }
  }
  if (expected && req.headers.authorization !== expected) {
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    return;
  }
  if (!req.url?.startsWith('/mcp')) {
    res.writeHead(404).end();
    return;
  }
  const sessionId = req.headers['mcp-session-id'];
  let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (!transport) {
    if (sessionId) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    const { server, cleanup } = createServer();
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      cleanup(transport.sessionId);
    };
    await server.connect(transport);
  }
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: http.address().port })}\n`));
