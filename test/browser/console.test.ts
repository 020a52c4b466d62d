/**
 * The console's web UI in Chromium (Playwright, Debian's /usr/bin/chromium) against a real AgentServer on a loopback
 * port and a real Postgres, serving the built console: list → session → live stream → approve → completed; a chat
 * with a tool approval through `useChat`; reloads mid-stream that neither lose nor double text; another principal
 * sees nothing. Every wait is on page state. Screenshots land in the kit's artifacts folder.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ASK_TEXT, LOOKUP_ASK, LOOKUP_TEXT, PAID_TEXT, SLOW_TEXT, holdSlowWork } from './support/browser-agents.js';
import { ALICE, BOB, startBrowserKit, type BrowserKit } from './support/browser-kit.js';

let kit: BrowserKit;
beforeAll(async () => {
  kit = await startBrowserKit('console_browser');
}, 120_000);
afterAll(async () => {
  await kit?.close();
});

const WAIT = { timeout: 20_000, interval: 50 };
/** The text of every match of `selector`, joined (empty while none). */
const textOf = (page: Page, selector: string): Promise<string> => page.locator(selector).allTextContents().then((texts) => texts.join(''));

describe('sessions list and session page', () => {
  it('list → session → live stream → approve → completed', async () => {
    expect((await kit.call('/start', ALICE, { agentType: 'clerk', sessionId: 'pay-1', input: 'approve: the invoice' })).status).toBe(201);
    const page = await kit.signedIn(ALICE);
    const row = page.locator('tr[data-session="pay-1"]');
    await row.getByText('waiting for a human').waitFor(WAIT);
    await expect.poll(() => page.getByTestId('counts').textContent(), WAIT).toContain('waiting for a human 1');
    await row.getByRole('link', { name: 'pay-1' }).click();

    // The session page: its pending approval and the run so far, streamed from /sse.
    await page.locator('[data-call]').getByText('pay').waitFor(WAIT);
    await expect.poll(() => textOf(page, '[data-testid=live-text]'), WAIT).toBe(ASK_TEXT);
    expect(await page.getByTestId('session-status').textContent()).toBe('active');
    await page.locator('[data-call]').getByRole('button', { name: 'Approve' }).click();

    // The answer streams in word by word: seen partial first, then whole, exactly once.
    await expect.poll(() => textOf(page, '[data-testid=live-text]'), WAIT).toMatch(new RegExp(`^${ASK_TEXT.replace(/[.]/g, '\\.')}Paid five`));
    await expect.poll(() => textOf(page, '[data-testid=live-text]'), WAIT).toBe(`${ASK_TEXT}${PAID_TEXT}`);
    await expect.poll(() => page.getByTestId('session-status').textContent(), WAIT).toBe('completed');
    await expect.poll(() => page.locator('[data-call]').count(), WAIT).toBe(0);
    await expect.poll(() => page.getByTestId('steps').textContent(), WAIT).toContain(PAID_TEXT);
    await expect.poll(() => page.getByTestId('runs').textContent(), WAIT).toContain('completed');
    await page.getByTestId('steps').locator('details.tool').first().click(); // expand the pay call
    expect(await page.getByTestId('steps').textContent()).toContain('{"paid":5}');
    await expect.poll(() => page.getByTestId('usage').textContent(), WAIT).toMatch(/^session2 model calls/);
    await page.screenshot({ path: join(kit.artifacts, 'console-session.png'), fullPage: true });
    await page.context().close();
  });

  it('a reload in the middle of a streaming step resumes it: no text lost, none doubled', async () => {
    const release = holdSlowWork();
    expect((await kit.call('/start', ALICE, { agentType: 'clerk', sessionId: 'slow-1', input: 'slow: tell me' })).status).toBe(201);
    const page = await kit.signedIn(ALICE, '#/sessions/slow-1');
    await expect.poll(() => textOf(page, '[data-testid=live-text]'), WAIT).toMatch(/^word1 word2 word3 /);
    expect((await textOf(page, '[data-testid=live-text]')).length).toBeLessThan(SLOW_TEXT.length);
    await page.reload();
    await expect.poll(() => textOf(page, '[data-testid=live-text]'), WAIT).toMatch(/^word1 word2 word3 /);
    release();
    await expect.poll(() => textOf(page, '[data-testid=live-text]'), WAIT).toBe(SLOW_TEXT);
    await expect.poll(() => page.getByTestId('session-status').textContent(), WAIT).toBe('completed');
    expect(await textOf(page, '[data-testid=live-text]')).toBe(SLOW_TEXT);
    await page.context().close();
  });
});

describe('chat page (useChat against /chat)', () => {
  it('streams text and tool parts; the approval button continues the run, after a reload too', async () => {
    const page = await kit.signedIn(ALICE, '#/chat/chat-pay');
    // A new chat (no session yet): empty and ready, nothing to reconnect to, no error.
    await page.getByLabel('Message').waitFor(WAIT);
    expect(await page.getByTestId('chat-status').textContent()).toBe('ready');
    expect(await page.locator('[data-role], .error').count()).toBe(0);
    await page.getByLabel('Message').fill('approve: the invoice');
    await page.getByRole('button', { name: 'Send' }).click();
    const tool = page.locator('[data-tool="pay"]');
    await expect.poll(() => tool.getAttribute('data-state'), WAIT).toBe('approval-requested');
    expect(await textOf(page, '[data-role=assistant] .text')).toBe(ASK_TEXT);
    // After a reload the request is still there, once (history, then the replay of the waiting run in its place).
    await page.reload();
    await expect.poll(() => tool.getAttribute('data-state'), WAIT).toBe('approval-requested');
    await expect.poll(() => page.getByTestId('chat-status').textContent(), WAIT).toBe('ready');
    // The history shows the answer at once; the replay of the waiting run then replaces it in place (polled: while it
    // streams, the answer is briefly the replay's own, partial).
    await expect.poll(() => textOf(page, '[data-role=assistant] .text'), WAIT).toBe(ASK_TEXT);
    await expect.poll(() => tool.getAttribute('data-state'), WAIT).toBe('approval-requested');
    expect(await page.locator('[data-role]').count()).toBe(2);
    await tool.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => tool.getAttribute('data-state'), WAIT).toBe('output-available');
    await expect.poll(() => textOf(page, '[data-role=assistant] .text'), WAIT).toBe(`${ASK_TEXT}${PAID_TEXT}`);
    await expect.poll(() => page.getByTestId('chat-status').textContent(), WAIT).toBe('ready');
    expect(await textOf(page, '[data-role=user] .text')).toBe('approve: the invoice');
    await page.screenshot({ path: join(kit.artifacts, 'console-chat.png'), fullPage: true });
    await expect.poll(async () => (await kit.call('/console/api/sessions/chat-pay', ALICE)).body.session.status, WAIT).toBe('completed');
    await page.context().close();
  });

  it('a reload mid-answer reconnects (resume: true) and shows the whole answer once; a reload restores every turn', async () => {
    const release = holdSlowWork();
    const page = await kit.signedIn(ALICE, '#/chat/chat-lookup');
    await page.getByLabel('Message').fill('lookup: the invoice');
    await page.getByRole('button', { name: 'Send' }).click();
    // Mid-answer: the first step is shown while the slow tool runs (the chat route sends a step's text as it ends).
    const tool = page.locator('[data-tool="lookup"]');
    await expect.poll(() => tool.getAttribute('data-state'), WAIT).toBe('input-available');
    expect(await textOf(page, '[data-role=assistant] .text')).toBe(LOOKUP_ASK);
    await page.reload();
    release();
    await expect.poll(() => page.locator('[data-tool="lookup"]').getAttribute('data-state'), WAIT).toBe('output-available');
    await expect.poll(() => textOf(page, '[data-role=assistant] .text'), WAIT).toBe(`${LOOKUP_ASK}${LOOKUP_TEXT}`);
    await expect.poll(() => page.getByTestId('chat-status').textContent(), WAIT).toBe('ready');
    expect(await page.locator('[data-role=assistant]').count()).toBe(1);
    expect(await page.locator('[data-tool]').count()).toBe(1);
    expect(await textOf(page, '[data-role=user] .text')).toBe('lookup: the invoice'); // restored from the history

    // A second turn, then a reload: both turns come back from the history, each once, the tool as it ended.
    await page.getByLabel('Message').fill('thanks');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => textOf(page, '[data-role=assistant] .text'), WAIT).toBe(`${LOOKUP_ASK}${LOOKUP_TEXT}You said: thanks`);
    await expect.poll(() => page.getByTestId('chat-status').textContent(), WAIT).toBe('ready');
    await page.reload();
    await expect.poll(() => page.locator('[data-role]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-role'))), WAIT).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await page.locator('[data-role=user] .text').allTextContents()).toEqual(['lookup: the invoice', 'thanks']);
    expect(await page.locator('[data-role=assistant]').allTextContents()).toEqual([expect.stringContaining(LOOKUP_TEXT), 'You said: thanks']);
    expect(await textOf(page, '[data-role=assistant] .text')).toBe(`${LOOKUP_ASK}${LOOKUP_TEXT}You said: thanks`);
    expect(await page.locator('[data-tool="lookup"]').getAttribute('data-state')).toBe('output-available');
    expect(await page.locator('[data-tool]').count()).toBe(1);
    await expect.poll(() => page.getByTestId('chat-status').textContent(), WAIT).toBe('ready');
    await page.context().close();
  });
});

describe('sessions list filters', () => {
  it('filters by status, update time, agent and waiting for a human (each through the API)', async () => {
    expect((await kit.call('/start', ALICE, { agentType: 'clerk', sessionId: 'wait-1', input: 'approve: later' })).status).toBe(201);
    const page = await kit.signedIn(ALICE);
    const rows = (): Promise<string[]> => page.locator('tr[data-session]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-session') ?? ''));
    await expect.poll(async () => (await rows()).includes('wait-1') && (await rows()).includes('pay-1'), WAIT).toBe(true);
    await page.getByLabel('waiting for a human').check();
    await expect.poll(rows, WAIT).toEqual(['wait-1']);
    await page.getByLabel('waiting for a human').uncheck();
    await page.getByLabel('Status').selectOption('completed');
    await expect.poll(async () => (await rows()).sort(), WAIT).toEqual(['chat-lookup', 'chat-pay', 'pay-1', 'slow-1']);
    expect(await page.getByTestId('total').textContent()).toBe('4 sessions');
    // A session last written two days ago leaves the list of the last day, and comes back for the last week.
    await backdate('slow-1', 2 * 86_400_000);
    await page.getByLabel('Updated').selectOption({ label: 'last day' });
    await expect.poll(async () => (await rows()).sort(), WAIT).toEqual(['chat-lookup', 'chat-pay', 'pay-1']);
    await page.getByLabel('Updated').selectOption({ label: 'last week' });
    await expect.poll(async () => (await rows()).sort(), WAIT).toEqual(['chat-lookup', 'chat-pay', 'pay-1', 'slow-1']);
    await page.getByLabel('Updated').selectOption({ label: 'any time' });
    await page.getByLabel('Status').selectOption('active');
    await page.getByLabel('Agent').selectOption('clerk');
    await expect.poll(rows, WAIT).toEqual(['wait-1']);
    expect((await kit.call('/console/api/sessions/wait-1/abort', ALICE, {})).status).toBe(200);
    await expect.poll(rows, WAIT).toEqual([]);
    await page.context().close();
  });
});

describe('isolation', () => {
  it("another principal sees none of alice's sessions, pages or chats", async () => {
    await expect.poll(async () => (await kit.call('/console/api/sessions', ALICE)).body.total, WAIT).toBeGreaterThanOrEqual(4);
    const page = await kit.signedIn(BOB);
    await expect.poll(() => page.getByTestId('total').textContent(), WAIT).toBe('0 sessions');
    expect(await page.locator('tr[data-session]').count()).toBe(0);
    await page.goto(`${kit.url}/console/#/sessions/pay-1`);
    await page.locator('.error').waitFor(WAIT);
    expect(await page.locator('.error').textContent()).toMatch(/No session with this id/);
    expect(await page.locator('[data-testid=steps]').count()).toBe(0);
    // Alice's chat is refused: the same 404 as a missing session (a new chat), so the page shows a new, empty chat.
    const refused = page.waitForResponse((response) => response.url().endsWith('/chat/chat-pay/messages'));
    await page.goto(`${kit.url}/console/#/chat/chat-pay`);
    expect((await refused).status()).toBe(404);
    await expect.poll(() => page.getByTestId('chat-status').textContent(), WAIT).toBe('ready');
    expect((await kit.call('/chat/chat-pay/stream', BOB)).status).toBe(404);
    expect(await page.locator('[data-role]').count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toContain(ASK_TEXT);
    await page.context().close();
  });
});

describe('the console page and assets (no browser)', () => {
  const get = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${kit.url}${path}`, { redirect: 'manual', ...init });

  it('serves the page without a token at every app path, with a <base> for its relative assets', async () => {
    const redirect = await get('/console');
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/console/');
    for (const path of ['/console/', '/console/sessions/pay-1', '/console/chat/x']) {
      const page = await get(path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await page.text();
      expect(html).toContain('<base href="/console/" />');
      expect(html).not.toMatch(/pay-1|alice/);
    }
  });

  it('serves the built assets with their content types; nothing outside the assets folder', async () => {
    const html = await (await get('/console/')).text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="\.\/(assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await get(`/console/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await js.text()).length).toBeGreaterThan(1_000);
    expect((await get(`/console/${style}`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const path of ['/console/assets/missing.js', '/console/assets/..%2f..%2fpackage.json', '/console/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json', '/console/assets/.hidden', '/console/assets/']) {
      expect((await get(path)).status, path).toBe(404);
    }
    // Dot segments (plain or %2e) are resolved by the URL parser before routing: such a path never leaves /console/.
    for (const path of ['/console/assets/../../package.json', '/console/assets/%2e%2e/%2e%2e/package.json', '/console/assets/%2e%2e/index.html']) {
      const dotted = await get(path);
      expect(await dotted.text(), path).not.toContain('"dependencies"');
    }
  });

  it('the API stays behind authentication; other methods are not served as files', async () => {
    expect((await get('/console/api/sessions')).status).toBe(401);
    expect((await get('/console/api/agents', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await get('/console/', { method: 'POST' })).status).toBe(401);
  });
});

/** Move a session's last write back in time (what a session idle for that long looks like). */
async function backdate(sessionId: string, byMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: kit.runtime.database.url });
  await client.connect();
  try {
    await client.query('UPDATE __agents_sessions SET updated_at = updated_at - $2 WHERE session_id = $1', [sessionId, byMs]);
  } finally {
    await client.end();
  }
}
