import { createRoute } from '@hono/zod-openapi';
import { createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { KeysSchema, jsonResponse } from '../schemas.ts';

/**
 * `GET /v1/keys`: public, the host's head-signing public key, so anyone holding an exported
 * journal and its signed head can check both without a token (an empty list: heads unsigned).
 */
export function keyRoutes(runtime: Runtime) {
  return createRouter().openapi(
    createRoute({ method: 'get', path: '/v1/keys', responses: { 200: jsonResponse(KeysSchema, "The host's public keys for run-head signatures") } }),
    (c) => c.json({ keys: runtime.signer ? [{ keyId: runtime.signer.keyId, algorithm: 'Ed25519' as const, publicKey: runtime.signer.publicKey }] : [] }, 200),
  );
}
