import react from '@vitejs/plugin-react';
import { playwright } from '@vitest/browser-playwright';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig } from 'vitest/config';

import { CHROMIUM_ARGS, CHROMIUM_PATH } from './tests/support/chromium.ts';

/**
 * zod's `z` object, used as a value (as @hono/zod-openapi re-exports it), keeps every message
 * locale in a bundle: some 40 languages, about a third of the in-page runtime. CUGAr's messages
 * are English, so zod's locale index resolves to a module that exports English only.
 */
const englishOnlyZod = {
  name: 'cugar-english-only-zod',
  enforce: 'pre' as const,
  resolveId(source: string, importer: string | undefined) {
    if (importer && /[\\/]node_modules[\\/]zod[\\/]/.test(importer) && /(^|\/)locales\/index\.js$/.test(source))
      return new URL('./src/web/zodLocales.ts', import.meta.url).pathname;
    return null;
  },
};

/**
 * @hono/zod-openapi passes zod's `z` object to `extendZodWithOpenApi`, which only patches
 * `ZodType.prototype`, and re-exports it: as one object it keeps all of zod (some 25 KB gzipped
 * of the in-page runtime). In the browser builds its `zod` resolves to a module whose `z` holds
 * `ZodType` alone, and the build fails if CUGAr's own code takes `z` from @hono/zod-openapi
 * instead of `import * as z from 'zod'`, since that `z` would then lack the schema builders.
 */
const narrowZodForOpenApi = {
  name: 'cugar-narrow-zod-for-openapi',
  enforce: 'pre' as const,
  resolveId(source: string, importer: string | undefined) {
    if (source === 'zod' && importer && /[\\/]node_modules[\\/]@hono[\\/]zod-openapi[\\/]/.test(importer))
      return new URL('./src/web/zodForOpenApi.ts', import.meta.url).pathname;
    return null;
  },
  transform(code: string, id: string) {
    if (/[\\/]node_modules[\\/]/.test(id) || !/\.tsx?$/.test(id)) return null;
    for (const [, names] of code.matchAll(/^import\s*\{([^}]*)\}\s*from\s*['"]@hono\/zod-openapi['"]/gm)) {
      if (names!.split(',').some((name) => /^\s*z(\s+as\s+\w+)?\s*$/.test(name)))
        throw new Error(`${id}: import zod's builders as \`import * as z from 'zod'\`; @hono/zod-openapi's \`z\` holds only ZodType in the browser builds`);
    }
    return null;
  },
};

const widget = {
  plugins: [englishOnlyZod, narrowZodForOpenApi],
  // `vite build --mode widget`: the <cugar-agent> element as an ES module (the in-page runtime
  // split into a chunk loaded on first local run) and as one IIFE file for a plain <script> tag.
  build: {
    outDir: new URL('./dist/widget', import.meta.url).pathname,
    emptyOutDir: true,
    lib: {
      entry: new URL('./src/web/widget/cugarAgent.ts', import.meta.url).pathname,
      name: 'CugarAgent',
      formats: ['es', 'iife'] as ('es' | 'iife')[],
      fileName: (format: string) => `cugar-agent.${format}.js`,
    },
  },
  publicDir: false as const,
};

export default defineConfig(({ mode }) =>
  mode === 'widget'
    ? widget
    : {
        // `vite build` builds the dashboard from src/web into dist/web; the test projects below run
        // from the repository root (vitest sets VITEST), so the root only moves for the build.
        ...(process.env['VITEST'] ? {} : { root: 'src/web' }),
        plugins: [
          englishOnlyZod,
          narrowZodForOpenApi,
          react(),
          // A service worker that precaches the built dashboard, so it loads with the network off
          // (local mode then runs entirely in the tab). API routes always go to the network.
          VitePWA({
            registerType: 'autoUpdate',
            injectRegister: 'script',
            manifest: {
              name: 'CUGAr',
              short_name: 'CUGAr',
              description: 'Offline-first agent runtime: runs, approvals and audit',
              start_url: './',
              display: 'standalone',
              theme_color: '#0b57d0',
              background_color: '#f6f8fa',
              icons: [],
            },
            workbox: {
              globPatterns: ['**/*.{js,css,html,webmanifest}'],
              // The dashboard routes in the fragment (`/#/runs/…`), so only its own address falls back
              // to the cached page; any other page of the host (the widget demo, the corpus) is
              // served by the host, and the API always goes to the network.
              navigateFallbackAllowlist: [/^\/(?:index\.html)?(?:\?.*)?$/],
              navigateFallbackDenylist: [/^\/v1\//, /^\/openapi\.json$/],
              maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
            },
          }),
        ],
        build: { outDir: new URL('./dist/web', import.meta.url).pathname, emptyOutDir: true },
        test: {
          projects: [
            {
              test: {
                name: 'node',
                environment: 'node',
                include: ['src/**/*.test.ts', 'tests/unit/**/*.test.ts', 'tests/node/**/*.test.ts', 'tests/e2e/**/*.test.ts', 'tests/conformance/**/*.test.ts'],
                // Conformance cases of what only a browser has (the origin private file system) run in Chromium alone.
                exclude: ['tests/conformance/**/*.browser.test.ts'],
                testTimeout: 60_000,
              },
            },
            {
              test: {
                name: 'workerd',
                environment: 'node',
                include: ['tests/workerd/**/*.test.ts'],
                testTimeout: 120_000,
                hookTimeout: 120_000,
              },
            },
            {
              test: {
                name: 'chromium',
                include: ['tests/conformance/**/*.test.ts'],
                testTimeout: 60_000,
                browser: {
                  enabled: true,
                  headless: true,
                  screenshotFailures: false,
                  provider: playwright({
                    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
                  }),
                  instances: [{ browser: 'chromium' }],
                },
              },
            },
          ],
        },
      },
);
