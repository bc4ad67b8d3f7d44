import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '**/node_modules/**', 'dist/**', '.cugar/**', 'coverage/**', '.vitest-reports/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      // TypeScript already checks every name; this rule only knows a fixed list of globals.
      'no-undef': 'off',
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Dependency direction: web and cli → api → core; edge hosts the api. Never the reverse.
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/**', '**/edge/**', '**/web/**', '**/cli/**', '**/mcp/**'],
              message: 'src/core imports nothing from api, mcp, edge, web or cli: hosts hand the core its ports',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/edge/**', '**/web/**', '**/cli/**', '**/mcp/**'],
              message: 'src/api imports only the core (and hono, zod): hosts, MCP, UIs and the CLI depend on it, not the reverse',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/web/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // The MCP client over Streamable HTTP is isomorphic (local mode connects to servers
              // itself); the stdio launcher and the MCP server stay with the Node hosts.
              group: ['**/edge/**', '**/cli/**', '**/mcp/**', '!**/mcp/config.ts', '!**/mcp/hostSetup.ts', '!**/mcp/register.ts'],
              message: 'src/web imports the api, the core and the MCP client, never a host (edge), the stdio launcher, the MCP server or the CLI',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      // The CLI is a Node program that hosts the API in-process (`cugar serve`, and local
      // commands over the SQLite file): it may use the Node host and its store, no other host.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/web/**',
                '**/edge/**',
                '!**/edge/nodeServer.ts',
                '!**/edge/sqliteStore.ts',
                '!**/edge/nodeDigest.ts',
                '!**/edge/nodeSigner.ts',
                '!**/edge/hostKey.ts',
              ],
              message: 'src/cli imports the api, the core and the Node host (nodeServer.ts, sqliteStore.ts, nodeDigest.ts, nodeSigner.ts, hostKey.ts) only',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: {
      // MCP client and server build on the api and the core; the hosts and the CLI mount them.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/edge/**', '**/web/**', '**/cli/**'], message: 'src/mcp imports the api and the core, never a host (edge), the UIs or the CLI' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/edge/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/web/**', '**/cli/**'], message: 'src/edge hosts the api: it imports the api and the core, never the UIs or the CLI' }] },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      // `import { z }` is zod's namespace as one object: bundlers keep all of it, every message
      // locale included (twice the core's size). `import * as z` lets them keep what is used.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message: "import zod as `import * as z from 'zod'` so bundlers can drop what the core does not use",
        },
      ],
    },
  },
);
