import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';

/** One scripted reply of the server to one `POST /v1/chat/completions`. */
export type Reply =
  | { text: string; tokens?: { input: number; output: number } }
  | { calls: Array<{ name: string; args: unknown; id?: string }>; text?: string; tokens?: { input: number; output: number } }
  /** A tool call written as JSON in the text, for models without native tool calling. */
  | { jsonText: { tool: string; arguments: unknown }; tokens?: { input: number; output: number } }
  | { status: number; headers?: Record<string, string>; body?: string }
  /** Answer `then` after `delayMs` (or never, when the client gives up first). */
  | { slow: number; then: Reply }
  /** A body that is not JSON (or, streamed, chunks that are not). */
  | { malformed: true };

/** A request the server received. */
export interface ReceivedRequest {
  authorization: string | undefined;
  body: { model: string; stream?: boolean; messages: Array<Record<string, unknown>>; tools?: Array<{ function: { name: string } }>; [key: string]: unknown };
}

/** The scripted OpenAI-compatible server: where it listens, what it got, and how to stop it. */
export interface ModelServer {
  /** Base URL for `CUGAR_MODEL_URL` (`http://127.0.0.1:<port>/v1`). */
  url: string;
  requests: ReceivedRequest[];
  /** Replace the remaining script (per model id, or one list for every model). */
  script(replies: Reply[] | Record<string, Reply[]>): void;
  close(): Promise<void>;
}

const usageOf = (reply: { tokens?: { input: number; output: number } }) => {
  const { input, output } = reply.tokens ?? { input: 12, output: 4 };
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
};

function message(reply: Reply, n: number): { content: string | null; tool_calls?: unknown[]; finish: string } {
  if ('calls' in reply) {
    const tool_calls = reply.calls.map((call, i) => ({
      id: call.id ?? `call_${n}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
    }));
    return { content: reply.text ?? null, tool_calls, finish: 'tool_calls' };
  }
  if ('jsonText' in reply) return { content: `I will call a tool.\n${JSON.stringify(reply.jsonText)}`, finish: 'stop' };
  return { content: 'text' in reply ? reply.text : '', finish: 'stop' };
}

/**
 * An OpenAI-compatible chat completions server on a random 127.0.0.1 port (Hono on Node),
 * answering from a script: plain JSON or SSE (when the request asks to stream), native tool
 * calls, JSON tool calls in the text, errors with headers (429 with Retry-After, 500, 401),
 * slow and malformed answers. It records every request, the Authorization header included.
 * Past the script it answers 500, so a test that calls too often sees it.
 */
export async function startModelServer(initial: Reply[] | Record<string, Reply[]> = []): Promise<ModelServer> {
  // The server consumes its own copy, so one script can serve several tests.
  let script = structuredClone(initial);
  const requests: ReceivedRequest[] = [];
  const app = new Hono();
  const next = (model: string): Reply | undefined => (Array.isArray(script) ? script.shift() : script[model]?.shift());

  app.post('/v1/chat/completions', async (c) => {
    const body = (await c.req.json()) as ReceivedRequest['body'];
    requests.push({ authorization: c.req.header('authorization'), body });
    let reply = next(body.model);
    while (reply && 'slow' in reply) {
      const { slow, then } = reply;
      await new Promise((done) => setTimeout(done, slow));
      reply = then;
    }
    if (!reply) return c.json({ error: { message: 'the script has no more replies' } }, 500);
    if ('status' in reply)
      return c.body(reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}` } }), reply.status as 500, {
        'content-type': 'application/json',
        ...reply.headers,
      });
    const n = requests.length;
    const id = `chatcmpl-${n}`;
    if ('malformed' in reply) {
      if (!body.stream) return c.body('{"id": "broken", "choices": [', 200, { 'content-type': 'application/json' });
      return streamSSE(c, async (sse) => {
        await sse.writeSSE({ data: '{"choices": [{"delta": {"content": "par' });
        await sse.writeSSE({ data: '[DONE]' });
      });
    }
    const { content, tool_calls, finish } = message(reply, n);
    const usage = usageOf(reply);
    if (!body.stream) {
      return c.json({
        id,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content, ...(tool_calls ? { tool_calls } : {}) }, finish_reason: finish }],
        usage,
      });
    }
    return streamSSE(c, async (sse) => {
      const chunk = (delta: unknown, finish_reason: string | null = null) =>
        sse.writeSSE({
          data: JSON.stringify({
            id,
            object: 'chat.completion.chunk',
            created: 1_700_000_000,
            model: body.model,
            choices: [{ index: 0, delta, finish_reason }],
          }),
        });
      await chunk({ role: 'assistant', content: '' });
      // The text in pieces, as a model streams it.
      for (const piece of (content ?? '').match(/.{1,5}/gs) ?? []) await chunk({ content: piece });
      for (const [index, call] of (tool_calls ?? []).entries()) await chunk({ tool_calls: [{ index, ...(call as object) }] });
      await chunk({}, finish);
      await sse.writeSSE({ data: JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices: [], usage }) });
      await sse.writeSSE({ data: '[DONE]' });
    });
  });

  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(replies) {
      script = structuredClone(replies);
    },
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
