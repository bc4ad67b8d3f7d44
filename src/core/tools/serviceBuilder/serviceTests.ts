import { stringLiteral } from './generateService.ts';
import type { ServiceSpec } from './serviceSpec.ts';
import { HONO_BUNDLE_VERSION } from '../../sandbox/honoBundle.generated.ts';

/**
 * The service's vitest tests: for every route, its example request answers the declared status
 * with a body that fits the response schema; a route with a body refuses one that is not JSON;
 * a route with a required query field refuses a request without it.
 */
export function serviceTestModule(spec: ServiceSpec): string {
  return `import { describe, expect, it } from 'vitest';
import app, { ROUTES, problemsOf, type Route } from './service.ts';

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function exampleUrl(route: Route, withQuery = true): string {
  const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => encodeURIComponent(text(route.example.params[name])));
  const query = Object.entries(route.example.query).map(([name, value]) => \`\${encodeURIComponent(name)}=\${encodeURIComponent(text(value))}\`);
  return withQuery && query.length > 0 ? \`\${path}?\${query.join('&')}\` : path;
}

function exampleInit(route: Route, body?: string): RequestInit {
  const init: RequestInit = { method: route.method.toUpperCase() };
  if (route.body) {
    init.headers = { 'content-type': 'application/json' };
    init.body = body ?? JSON.stringify(route.example.body);
  }
  return init;
}

describe(${stringLiteral(spec.name)}, () => {
  for (const route of ROUTES) {
    const name = \`\${route.method.toUpperCase()} \${route.path}\`;

    it(\`\${name} answers its example\`, async () => {
      const response = await app.request(exampleUrl(route), exampleInit(route));
      expect(response.status).toBe(route.response.status);
      expect(problemsOf(route.response.schema, await response.json())).toEqual([]);
    });

    if (route.body)
      it(\`\${name} refuses a body that is not JSON\`, async () => {
        const response = await app.request(exampleUrl(route), exampleInit(route, '{'));
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: { code: 'bad_request' } });
      });

    if ((route.query?.required.length ?? 0) > 0)
      it(\`\${name} refuses a request without its required query\`, async () => {
        const response = await app.request(exampleUrl(route, false), exampleInit(route));
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: { code: 'bad_request' } });
      });
  }
});
`;
}

/** The service's package.json: Hono (the version CUGAr's sandbox runs), vitest, and `npm test`. */
export function packageManifest(spec: ServiceSpec): string {
  const manifest = {
    name: spec.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    ...(spec.description === undefined ? {} : { description: spec.description }),
    scripts: { test: 'vitest run' },
    dependencies: { hono: `^${HONO_BUNDLE_VERSION}` },
    devDependencies: { vitest: '^4.0.0', typescript: '^5.0.0' },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
