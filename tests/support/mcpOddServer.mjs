// A misbehaving MCP server on stdio, for the client's bad-input tests. The mode is argv[2]:
//   schemas      lists a usable tool beside tools whose schemas must be refused
//   crash        exits in the middle of any tool call
//   hang         answers initialize and tools/list, never a tool call
//   malformed    answers every line with bytes that are not JSON-RPC
//   badresult    answers a tool call with a result that is not a CallToolResult
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const mode = process.argv[2];

if (mode === 'malformed') {
  process.stdin.on('data', () => process.stdout.write('this is not json {{{\n'));
} else if (mode === 'badresult') {
  // Raw JSON-RPC, so the answer to a call can break the protocol's schema (the SDK would not send it).
  const answer = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
  let buffered = '';
  process.stdin.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines.filter(Boolean)) {
      const message = JSON.parse(line);
      if (message.method === 'initialize')
        answer(message.id, { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1.0.0' } });
      else if (message.method === 'tools/list') answer(message.id, { tools: [{ name: 'ok-tool', inputSchema: { type: 'object' } }] });
      else if (message.method === 'tools/call') answer(message.id, { content: 'not a list of blocks' });
    }
  });
} else {
  const deep = { type: 'object', properties: {} };
  let node = deep;
  for (let i = 0; i < 40; i++) {
    const child = { type: 'object', properties: {} };
    node.properties.x = child;
    node = child;
  }
  const tools = [
    {
      name: 'ok-tool',
      description: 'A tool with a usable schema',
      inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
    },
    {
      name: 'huge',
      description: 'A schema larger than the limit',
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(20) }])),
      },
    },
    { name: 'deep', description: 'A schema nested too deeply', inputSchema: deep },
    { name: 'not-object', description: 'A schema that is not an object schema', inputSchema: { type: 'string' } },
    {
      name: 'conditional',
      description: 'A schema zod cannot express',
      inputSchema: { type: 'object', if: { properties: { a: { const: 1 } } }, then: { required: ['b'] } },
    },
    { name: 'bad-ref', description: 'A schema with a dangling reference', inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } },
  ];
  const server = new Server({ name: 'odd', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mode === 'schemas' ? tools : tools.slice(0, 1) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (mode === 'crash') setTimeout(() => process.exit(3), 50);
    if (mode === 'crash' || mode === 'hang') return new Promise(() => undefined);
    return { content: [{ type: 'text', text: `n=${request.params.arguments?.n}` }] };
  });
  await server.connect(new StdioServerTransport());
}
