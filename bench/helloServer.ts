// The ceiling for the HTTP benchmark: a plain Hono app with one route on the same Node server
// stack; with HELLO_SECURE_HEADERS=1, Hono's secureHeaders() too (the headers every API answer carries).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

const app = new Hono();
if (process.env['HELLO_SECURE_HEADERS'] === '1') app.use('*', secureHeaders());
app.get('/hello', (c) => c.json({ hello: 'world' }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening http://127.0.0.1:${info.port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
