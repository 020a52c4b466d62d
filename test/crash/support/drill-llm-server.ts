/**
 * The fake OpenAI server of a crash test file, running in the parent test process: every worker's LLM
 * request lands here, so requests are counted per session and per agent step no matter which process (or
 * how many killed ones) sent them.
 */
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIResponse } from '../../fixtures/fake-openai/index.js';
import { sessionIdIn } from '../worker/worker-config.js';
import type { DrillScenario } from './drill-scenarios.js';

/**
 * One LLM request as the drill sees it.
 *
 * @example
 * const firstStepCalls = server.requestsOf('s1').filter((request: DrillRequest) => request.step === 1);
 */
export interface DrillRequest {
  sessionId: string;
  /** Agent step: 1 + the assistant messages already in the request's history. */
  step: number;
  /** 1 for the first request of this (session, step), 2 for the next, … */
  attempt: number;
  receivedAt: number;
}

/**
 * A fake OpenAI server answering each registered session from its scenario.
 *
 * @example
 * const server = await DrillLLMServer.start();
 * server.register('s1', DRILL_SCENARIOS.toolCrash, { crash: true });
 * // spawn workers with server.baseURL …
 * expect(server.countOf('s1', 1)).toBe(1);
 */
export class DrillLLMServer {
  private readonly sessions = new Map<string, { scenario: DrillScenario; crash: boolean }>();
  private readonly log: DrillRequest[] = [];
  private fake: FakeOpenAI | undefined;

  private constructor() {}

  /** Start listening on 127.0.0.1 (random port). */
  static async start(): Promise<DrillLLMServer> {
    const server = new DrillLLMServer();
    server.fake = await startFakeOpenAI((request) => server.answer(request.body));
    return server;
  }

  /** `http://127.0.0.1:<port>/v1`. */
  get baseURL(): string {
    if (this.fake === undefined) throw new Error('DrillLLMServer is not started');
    return this.fake.baseURL;
  }

  /** Answer `sessionId`'s requests from `scenario`; `crash` sessions get the scenario's kill-window answers. */
  register(sessionId: string, scenario: DrillScenario, options: { crash: boolean }): void {
    this.sessions.set(sessionId, { scenario, crash: options.crash });
  }

  /** Every request of a session, in arrival order. */
  requestsOf(sessionId: string): DrillRequest[] {
    return this.log.filter((request) => request.sessionId === sessionId);
  }

  /** How many requests a session sent (for one step when `step` is given). */
  countOf(sessionId: string, step?: number): number {
    return this.requestsOf(sessionId).filter((request) => step === undefined || request.step === step).length;
  }

  /** Requests per step of a session: `[step 1 count, step 2 count, …]`. */
  countsByStep(sessionId: string): number[] {
    const counts: number[] = [];
    for (const request of this.requestsOf(sessionId)) counts[request.step - 1] = (counts[request.step - 1] ?? 0) + 1;
    return Array.from(counts, (count) => count ?? 0);
  }

  /** Requests that named no registered session (should stay 0). */
  get unattributedCount(): number {
    return this.log.filter((request) => !this.sessions.has(request.sessionId)).length;
  }

  async close(): Promise<void> {
    await this.fake?.close();
  }

  private answer(body: unknown): FakeOpenAIResponse | undefined {
    const messages = (body as { messages?: Array<{ role?: string }> } | null)?.messages ?? [];
    const sessionId = sessionIdIn(JSON.stringify(messages)) ?? '<none>';
    const step = messages.filter((message) => message.role === 'assistant').length + 1;
    const attempt = this.log.filter((request) => request.sessionId === sessionId && request.step === step).length + 1;
    this.log.push({ sessionId, step, attempt, receivedAt: Date.now() });
    const registered = this.sessions.get(sessionId);
    return registered?.scenario.answer(step, attempt, registered.crash);
  }
}
