/**
 * The console's session actions in Chromium, each through its button, each reflected on the page at once (from the
 * action's own answer, before the page's 3 s refresh): interrupt then resume, retry of a failed session, submit of a
 * client tool's result, branch from a checkpoint, and the sub-agent tree's status as its child waits and ends. The
 * agent is the console API tests' `desk` (see test/integration/server/support/console-agents.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_TEXT, holdSlowWork } from './support/browser-agents.js';
import { ALICE, startBrowserKit, type BrowserKit } from './support/browser-kit.js';

let kit: BrowserKit;
beforeAll(async () => {
  kit = await startBrowserKit('console_actions');
}, 120_000);
afterAll(async () => {
  await kit?.close();
});

const WAIT = { timeout: 20_000, interval: 50 };
/** Shorter than the page's 3 s refresh: what shows this fast came from the action's answer. */
const AT_ONCE = { timeout: 2_500, interval: 25 };
const statusOf = (page: Page): Promise<string | null> => page.getByTestId('session-status').textContent();

async function openSession(sessionId: string, input: string, agentType = 'desk'): Promise<Page> {
  expect((await kit.call('/start', ALICE, { agentType, sessionId, input })).status).toBe(201);
  return kit.signedIn(ALICE, `#/sessions/${sessionId}`);
}

describe('session actions through the console', () => {
  it('Interrupt stops the running session; Resume continues it to the end', async () => {
    // A 6 s tool: long enough for the page to show the run running on a slow machine (2.5 s was not, once).
    const page = await openSession('act-stop', 'slow6000: wait');
    const interrupt = page.getByRole('button', { name: 'Interrupt' });
    await expect.poll(() => interrupt.isEnabled(), WAIT).toBe(true); // a run is running
    await interrupt.click();
    // The interrupt lands when the running step ends: the tool's, which may have just begun.
    await expect.poll(() => statusOf(page), WAIT).toBe('interrupted');
    expect(await page.locator('.note').first().textContent()).toContain('Interrupted');
    const resume = page.getByRole('button', { name: 'Resume' });
    await expect.poll(() => resume.isEnabled(), AT_ONCE).toBe(true);
    await resume.click();
    await expect.poll(() => statusOf(page), AT_ONCE).not.toBe('interrupted');
    await expect.poll(() => statusOf(page), WAIT).toBe('completed');
    await expect.poll(() => page.getByTestId('runs').locator('.badge').allTextContents(), WAIT).toEqual(['interrupted', 'completed']);
    await page.context().close();
  });

  it('Retry restarts a failed session', async () => {
    const page = await openSession('act-retry', 'fail: then echo');
    await expect.poll(() => statusOf(page), WAIT).toBe('failed');
    expect(await page.locator('.error').first().textContent()).toMatch(/^Failed/);
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => statusOf(page), AT_ONCE).not.toBe('failed');
    await expect.poll(() => statusOf(page), WAIT).toBe('completed');
    await expect.poll(() => page.getByTestId('steps').textContent(), WAIT).toContain('echo fail: then echo');
    await page.context().close();
  });

  it("Submit answers a client tool; Branch starts a new session from one of the session's checkpoints", async () => {
    const page = await openSession('act-submit', 'client: where to?');
    const call = page.locator('[data-call]');
    await call.getByText('ask_user').waitFor(WAIT);
    expect(await call.textContent()).toContain('client tool');
    await call.getByLabel('Result (JSON)').fill('"Lisbon"');
    await call.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => call.count(), AT_ONCE).toBe(0);
    await expect.poll(() => statusOf(page), WAIT).toBe('completed');
    await expect.poll(() => page.getByTestId('steps').textContent(), WAIT).toContain('Tool said: ');
    expect(await page.getByTestId('steps').textContent()).toContain('Lisbon');

    // Branch from the first checkpoint: the page prompts for the message and opens the new session.
    page.once('dialog', (dialog) => void dialog.accept('a branch'));
    await page.getByRole('button', { name: 'Branch' }).first().click();
    await expect.poll(() => new URL(page.url()).hash, AT_ONCE).toMatch(/^#\/sessions\/branch-/);
    const branchId = decodeURIComponent(new URL(page.url()).hash.replace('#/sessions/', ''));
    await expect.poll(() => page.locator('h1').textContent(), AT_ONCE).toContain(branchId);
    await expect.poll(() => statusOf(page), WAIT).toBe('completed');
    await expect.poll(() => page.getByTestId('steps').textContent(), WAIT).toContain('echo a branch');
    expect((await kit.call(`/console/api/sessions/${branchId}`, ALICE)).body.session.status).toBe('completed');
    await page.context().close();
  });

  it("the sub-agent tree shows the child's status as it waits for approval and ends", async () => {
    const page = await openSession('act-tree', 'delegate: pay the bill');
    const child = page.locator('li[data-node^="act-tree-sub-"]');
    await expect.poll(() => child.locator('.badge').textContent(), WAIT).toBe('active');
    const call = page.locator('[data-call]');
    await call.getByText('pay').waitFor(WAIT);
    expect(await call.textContent()).toContain('from helper');
    await call.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => call.count(), AT_ONCE).toBe(0);
    await expect.poll(() => child.locator('.badge').textContent(), WAIT).toBe('completed');
    await expect.poll(() => statusOf(page), WAIT).toBe('completed');
    // The child's own page: its status and the link back to its parent.
    await child.getByRole('link', { name: 'helper' }).click();
    // Once the child's page is shown (the parent's, completed too, may still be up right after the click).
    await expect.poll(() => page.locator('.meta').textContent(), WAIT).toContain('parent act-tree');
    await expect.poll(() => statusOf(page), WAIT).toBe('completed');
    await page.context().close();
  });

  it("a companion's page follows the companion's own stream live", async () => {
    const release = holdSlowWork();
    const page = await openSession('act-boss', 'go', 'boss');
    const node = page.locator('li[data-node="act-boss-agent-w"]');
    await node.getByRole('link', { name: 'w' }).click();
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toContain('act-boss-agent-w');
    const live = (): Promise<string> => page.getByTestId('live-text').allTextContents().then((texts) => texts.join(''));
    await expect.poll(live, WAIT).toMatch(/^word1 word2 /);
    expect((await live()).length).toBeLessThan(SLOW_TEXT.length); // seen while it streams
    release();
    await expect.poll(live, WAIT).toBe(SLOW_TEXT);
    await expect.poll(() => statusOf(page), WAIT).toBe('completed');
    await page.context().close();
  });
});
