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
  {
    files: ['src/core/**/*.ts'],
    rules: {
      // `import { z }` is zod's namespace as one object: bundlers keep all of it, every message
      // locale included (twice the core's size). `import * as z` lets them keep what is used.
      'no-restricted-syntax': ['error', { selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']", message: "import zod as `import * as z from 'zod'` so bundlers can drop what the core does not use" }],
    },
  },
);
