import { createServer, type Server } from 'node:http';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright';

import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.ts';

/** Bundle `entry` for the browser and serve it on 127.0.0.1 under a blank page; returns the URL and a closer. */
export async function servePage(entry: string): Promise<{ url: string; server: Server }> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    write: false,
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  const server = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html lang="en"><title>CUGAr test page</title><script src="/page.js"></script></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, server };
}

/** Debian's Chromium through Playwright, with the flags this machine needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
