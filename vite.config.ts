import react from '@vitejs/plugin-react';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';

/** Flags Debian's Chromium needs on this kind of machine: no sandbox as root, no GPU, no calls home. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export default defineConfig({
  // `vite build` builds the dashboard from src/web into dist/web; the test projects below run
  // from the repository root (vitest sets VITEST), so the root only moves for the build.
  ...(process.env['VITEST'] ? {} : { root: 'src/web' }),
  plugins: [react()],
  build: { outDir: new URL('./dist/web', import.meta.url).pathname, emptyOutDir: true },
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['src/**/*.test.ts', 'tests/unit/**/*.test.ts', 'tests/node/**/*.test.ts', 'tests/e2e/**/*.test.ts', 'tests/conformance/**/*.test.ts'],
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
});
