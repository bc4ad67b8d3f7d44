import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { nextReply, replyTo, type ChatRequestBody, type Reply, type Script } from './openAIReplies.ts';

export type { Reply };

/** A request the server received. */
export interface ReceivedRequest {
  authorization: string | undefined;
  body: ChatRequestBody;
}

/** The scripted OpenAI-compatible server: where it listens, what it got, and how to stop it. */
export interface ModelServer {
  /** Base URL for `CUGAR_MODEL_URL` (`http://127.0.0.1:<port>/v1`). */
  url: string;
  requests: ReceivedRequest[];
  /** Replace the remaining script (per model id, or one list for every model). */
  script(replies: Script): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible chat completions server on a random 127.0.0.1 port (Hono on Node),
 * answering from a script (`openAIReplies.ts`): plain JSON or SSE (when the request asks to
 * stream), native tool calls, JSON tool calls in the text, errors with headers (429 with
 * Retry-After, 500, 401), slow and malformed answers. It records every request, the
 * Authorization header included. Past the script it answers 500, so a test that calls too
 * often sees it.
 */
export async function startModelServer(initial: Script = []): Promise<ModelServer> {
  // The server consumes its own copy, so one script can serve several tests.
  let script = structuredClone(initial);
  const requests: ReceivedRequest[] = [];
  const app = new Hono();
  // A dashboard tab in local mode calls the server from another origin.
  app.use('*', cors());
  app.post('/v1/chat/completions', async (c) => {
    const body = (await c.req.json()) as ChatRequestBody;
    requests.push({ authorization: c.req.header('authorization'), body });
    return replyTo(nextReply(script, body.model), body, requests.length, c.req.raw.signal);
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
