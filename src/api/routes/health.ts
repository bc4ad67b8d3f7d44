import { createRoute } from '@hono/zod-openapi';
import { createRouter } from '../errors.ts';
import { HealthSchema, jsonResponse } from '../schemas.ts';

/** `GET /v1/health`: public, for load balancers and uptime checks. */
export function healthRoutes() {
  return createRouter().openapi(createRoute({ method: 'get', path: '/v1/health', responses: { 200: jsonResponse(HealthSchema, 'The server is up') } }), (c) =>
    c.json({ status: 'ok' as const, version: '0.1.0' }, 200),
  );
}
