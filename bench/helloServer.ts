// The ceiling for the HTTP benchmark: a plain Hono app with one route on the same Node server stack.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/hello', (c) => c.json({ hello: 'world' }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening http://127.0.0.1:${info.port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
