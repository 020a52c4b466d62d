/**
 * The browser tests' world: the built console (built once into `dist/console/` when absent), DBOS on a fresh
 * database, an `AgentServer` with the console and the chat route on a 127.0.0.1 port, and Debian's Chromium driven by
 * Playwright. Screenshots go to `HELIX_BROWSER_ARTIFACTS` or a temp folder.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { AgentServer } from '../../../src/server/agent-server.js';
import { createHttpAdapter } from '../../../src/server/node-http-adapter.js';
import { freePort } from '../../support/free-port.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { boss, browserModel, clerk, desk } from './browser-agents.js';

export const CHROMIUM = '/usr/bin/chromium';
export const TOKENS: Readonly<Record<string, string>> = { 'token-alice': 'alice', 'token-bob': 'bob' };
export const ALICE = 'token-alice';
export const BOB = 'token-bob';

const ROOT = resolve(import.meta.dirname, '../../..');
const BUILT = join(ROOT, 'dist/console');

/** `npm run build` builds the console; a test run without it builds it here (into a temp folder, moved in whole). */
export async function ensureConsoleBuilt(): Promise<void> {
  if (existsSync(join(BUILT, 'index.html'))) return;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const staging = mkdtempSync(join(ROOT, 'dist/.console-'));
  try {
    await build({ configFile: join(ROOT, 'console/vite.config.ts'), logLevel: 'silent', build: { outDir: staging, emptyOutDir: true } });
    if (!existsSync(join(BUILT, 'index.html'))) renameSync(staging, BUILT);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface BrowserKit {
  runtime: TestRuntime;
  url: string;
  browser: Browser;
  artifacts: string;
  /** A new page (its own browser context: its own sessionStorage) signed in with `token`. */
  signedIn(token: string, hash?: string): Promise<Page>;
  call(path: string, token: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startBrowserKit(prefix: string): Promise<BrowserKit> {
  await ensureConsoleBuilt();
  const runtime = await startTestRuntime(prefix, browserModel(), { hitlWarmWindowMs: 30_000, persistentWarmWindowMs: 400 });
  const server = new AgentServer({
    executor: runtime.executor,
    stateStore: runtime.stateStore,
    streamManager: runtime.streamManager,
    usageStore: runtime.usageStore,
    agents: [clerk, desk, boss],
    chat: { agent: clerk },
    console: {},
    authenticate: (request) => {
      const id = TOKENS[request.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''];
      return id === undefined ? null : { id };
    },
  });
  const port = await freePort();
  const http = createServer(createHttpAdapter(server));
  await new Promise<void>((done) => http.listen(port, '127.0.0.1', done));
  const url = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const artifacts = process.env.HELIX_BROWSER_ARTIFACTS ?? mkdtempSync(join(tmpdir(), 'helix-console-'));
  mkdirSync(artifacts, { recursive: true });
  return {
    runtime,
    url,
    browser,
    artifacts,
    signedIn: async (token, hash = '#/') => {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${url}/console/${hash}`);
      await page.getByLabel('Token').fill(token);
      await page.getByRole('button', { name: 'Open the console' }).click();
      return page;
    },
    call: async (path, token, body) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : JSON.parse(text) };
    },
    close: async () => {
      await browser.close().catch(() => undefined);
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && (await DBOS.listWorkflows({ status: 'PENDING' })).length > 0) await new Promise((done) => setTimeout(done, 100));
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
      await runtime.shutdown();
    },
  };
}
