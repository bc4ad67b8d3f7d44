/** One scripted reply to one `POST /v1/chat/completions`. */
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

/** The part of a chat completions request the replies look at. */
export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: Array<Record<string, unknown>>;
  tools?: Array<{ function: { name: string } }>;
  [key: string]: unknown;
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

/** Server-sent events from `data` lines, as a streamed body. */
function sse(lines: readonly string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const line of lines) controller.enqueue(encoder.encode(`data: ${line}\n\n`));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

/**
 * The OpenAI chat completions answer to `reply` for the `n`th request: JSON, or SSE chunks when
 * the request asks to stream (text in pieces, tool calls, finish, usage, `[DONE]`). Web-standard
 * `Response`s only, so the same replies serve a loopback server and an in-page fetch.
 */
export async function replyTo(reply: Reply | undefined, body: ChatRequestBody, n: number, signal?: AbortSignal): Promise<Response> {
  while (reply && 'slow' in reply) {
    const { slow, then } = reply;
    await new Promise((done, fail) => {
      const timer = setTimeout(done, slow);
      signal?.addEventListener('abort', () => (clearTimeout(timer), fail(signal.reason)), { once: true });
    });
    reply = then;
  }
  const json = (value: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(typeof value === 'string' ? value : JSON.stringify(value), { status, headers: { 'content-type': 'application/json', ...headers } });
  if (!reply) return json({ error: { message: 'the script has no more replies' } }, 500);
  if ('status' in reply) return json(reply.body ?? { error: { message: `scripted ${reply.status}` } }, reply.status, reply.headers);
  const id = `chatcmpl-${n}`;
  if ('malformed' in reply) return body.stream ? sse(['{"choices": [{"delta": {"content": "par', '[DONE]']) : json('{"id": "broken", "choices": [');
  const { content, tool_calls, finish } = message(reply, n);
  const usage = usageOf(reply);
  const head = { id, created: 1_700_000_000, model: body.model };
  if (!body.stream) {
    return json({
      ...head,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content, ...(tool_calls ? { tool_calls } : {}) }, finish_reason: finish }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish_reason: string | null = null) =>
    JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason }] });
  return sse([
    chunk({ role: 'assistant', content: '' }),
    // The text in pieces, as a model streams it.
    ...((content ?? '').match(/.{1,5}/gs) ?? []).map((piece) => chunk({ content: piece })),
    ...(tool_calls ?? []).map((call, index) => chunk({ tool_calls: [{ index, ...(call as object) }] })),
    chunk({}, finish),
    JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage }),
    '[DONE]',
  ]);
}

/** A script: one list of replies, or a list per model id. */
export type Script = Reply[] | Record<string, Reply[]>;

/** Take the next reply for `model` off a script. */
export function nextReply(script: Script, model: string): Reply | undefined {
  return Array.isArray(script) ? script.shift() : script[model]?.shift();
}

/**
 * A `fetch` that answers OpenAI chat completions from a script in the page itself (no network),
 * for runtimes where no loopback server can be started (a browser tab); it records each body.
 */
export function scriptedFetch(initial: Script): { fetch: typeof fetch; bodies: ChatRequestBody[] } {
  const script = structuredClone(initial);
  const bodies: ChatRequestBody[] = [];
  const fetchImpl = async (_input: RequestInfo | URL, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as ChatRequestBody;
    bodies.push(body);
    return replyTo(nextReply(script, body.model), body, bodies.length, init?.signal ?? undefined);
  };
  return { fetch: fetchImpl as typeof fetch, bodies };
}
