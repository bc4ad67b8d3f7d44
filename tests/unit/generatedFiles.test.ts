import { parse } from '@babel/parser';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { buildMicroservice } from '../../src/core/index.ts';
import { createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { GeneratedFiles } from '../../src/web/dashboard/GeneratedFiles.tsx';
import { USERS_SPEC } from '../support/serviceSpecs.ts';

// The run page's download links for generated files: one per file and one for all of them, each
// holding exactly the file's text; outputs without files render nothing.

const sandbox = createNodeSandbox();
afterAll(() => sandbox.close());

function links(markup: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of markup.matchAll(/<a[^>]* href="data:[^,]*,([^"]*)" download="([^"]*)"/g))
    found.set(m[2]!, decodeURIComponent(m[1]!.replaceAll('&amp;', '&').replaceAll('&#x27;', "'").replaceAll('&quot;', '"')));
  return found;
}

describe('the run page: generated files', () => {
  it('offers each file of a built service, and all of them as JSON', async () => {
    const build = await buildMicroservice(USERS_SPEC, { sandbox, parser: parse });
    const markup = renderToStaticMarkup(createElement(GeneratedFiles, { outputs: { s1: build, s0: { sum: 3 } } }));
    expect(markup).toContain('users (step s1): audit and smoke test passed');
    const found = links(markup);
    expect([...found.keys()]).toEqual(['users-package.json', 'users-service.ts', 'users-service.test.ts', 'users-report.json', 'users.files.json']);
    for (const file of build.files) expect(found.get(`users-${file.path}`)).toBe(file.content);
    expect(JSON.parse(found.get('users.files.json')!)).toEqual({ service: 'users', files: build.files });
  });

  it('renders nothing for outputs without files, or with file paths that leave their folder', () => {
    expect(renderToStaticMarkup(createElement(GeneratedFiles, { outputs: { s0: { sum: 3 }, s1: 'text' } }))).toBe('');
    const escaping = { files: [{ path: '../etc/passwd', content: 'x' }], report: { service: 'x', ok: true } };
    expect(renderToStaticMarkup(createElement(GeneratedFiles, { outputs: { s0: escaping } }))).toBe('');
  });
});
