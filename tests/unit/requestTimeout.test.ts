import { describe, expect, it } from 'vitest';
import { createRouter, respondToError } from '../../src/api/errors.ts';
import { installSecurityChain } from '../../src/api/middleware.ts';

/** The API's security chain on a bare router, with one slow route beside health. */
function appWith(requestTimeoutMs: number) {
  const app = createRouter();
  installSecurityChain(app, { tokens: { 't0k3n-for-tests-0123456789': '*' }, requestTimeoutMs });
  app.onError(respondToError);
  app.get('/v1/health', (c) => c.json({ status: 'ok' }));
  app.get('/v1/slow', async (c) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return c.json({ done: true });
  });
  return app;
}

describe('request timeout', () => {
  it('answers 504 in the API error shape when a request takes too long, and leaves health and streams alone', async () => {
    const app = appWith(100);
    const auth = { authorization: 'Bearer t0k3n-for-tests-0123456789' };
    const slow = await app.request('/v1/slow', { headers: auth });
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({ error: { message: 'the request took too long' } });
    const health = await app.request('/v1/health');
    expect(health.status).toBe(200);
    // A stream is exempt: the slow route answers in full when asked for events.
    const streamed = await app.request('/v1/slow', { headers: { ...auth, accept: 'text/event-stream' } });
    expect(streamed.status).toBe(200);
  });
});
