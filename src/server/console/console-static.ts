import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MiddlewareHandler } from 'hono';
import type { AgentServerEnvironment } from '../server-context.js';

/**
 * @internal Where the built console is: `dist/console/` next to the compiled server (`dist/server/console/` → `../../console`),
 * or, when the server runs from `src/` (tsx), the package's `dist/console/`. Null when neither holds an `index.html`.
 *
 * @example
 * const directory = consoleAssetsDirectory(); // '/…/node_modules/helix-agents-dbos/dist/console' or null
 */
export function consoleAssetsDirectory(): string | null {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const candidate of [resolve(here, '../../console'), resolve(here, '../../../dist/console')]) {
    if (existsSync(resolve(candidate, 'index.html'))) return candidate;
  }
  return null;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/**
 * @internal The console's web UI at `{prefix}/`, before authentication (the page and its assets hold no data; every data
 * request goes through the API with the user's bearer token). `{prefix}/assets/…` are the built files (404 when
 * missing, never outside the assets folder); `{prefix}` redirects to `{prefix}/`; every other GET under `{prefix}/`
 * except `api/` is the app's page, `index.html` with a `<base href>` and the server's base path in a meta tag. Not
 * GET, `{prefix}/api/…` and a server built without the console go on to the next handler.
 *
 * @example
 * routes.use(`${consoleAt}/*`, consoleStatic('/console', '', consoleAssetsDirectory()));
 */
export function consoleStatic(prefix: string, basePath: string, directory: string | null): MiddlewareHandler<AgentServerEnvironment> {
  let page: Promise<string> | null = null;
  return async (c, next) => {
    if (directory === null || (c.req.method !== 'GET' && c.req.method !== 'HEAD')) return next();
    const pathname = new URL(c.req.url).pathname;
    if (pathname === prefix) return c.redirect(`${prefix}/`, 308);
    if (!pathname.startsWith(`${prefix}/`)) return next();
    const rest = pathname.slice(prefix.length + 1);
    if (rest === 'api' || rest.startsWith('api/')) return next();
    const headers = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
    if (rest.startsWith('assets/')) {
      const file = assetFile(directory, rest);
      const body = file === null ? null : await readFile(file).catch(() => null);
      if (file === null || body === null) return c.json({ error: { code: 'NOT_FOUND', message: 'No such asset.' } }, 404);
      return c.body(new Uint8Array(body), 200, { ...headers, 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'public, max-age=31536000, immutable' });
    }
    page ??= readFile(resolve(directory, 'index.html'), 'utf8').then((html) => html.replace('<head>', `<head>\n    <base href="${prefix}/" />\n    <meta name="helix-base-path" content="${basePath}" />`));
    return c.body(await page, 200, { ...headers, 'content-type': CONTENT_TYPES['.html']!, 'cache-control': 'no-cache' });
  };
}

/** The file of an `assets/…` path inside `directory`, or null for an encoded, dotted or escaping path. */
function assetFile(directory: string, path: string): string | null {
  if (path.includes('%') || path.includes('\\') || path.split('/').some((segment) => segment === '' || segment.startsWith('.'))) return null;
  const assets = resolve(directory, 'assets');
  const file = resolve(directory, path);
  return file.startsWith(`${assets}${sep}`) ? file : null;
}
