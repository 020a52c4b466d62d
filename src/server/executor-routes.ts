import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { parseBody, parseQuery } from './http-errors.js';
import { AgentServerHttpError, sessionNotFound } from './server-errors.js';
import { owns, type AgentServerEnvironment, type ServerContext } from './server-context.js';
import { abortRun, describeRun, interruptRun, submitAndContinue } from './session-operations.js';
import { statusOfSession } from './session-status.js';
import { sseRoute } from './sse-route.js';
import { incomingTrace } from './trace-context.js';
import { controlRequestSchema, resumeRequestSchema, retryRequestSchema, startRequestSchema, statusQuerySchema, submitRequestSchema } from './wire-schemas.js';

/** @internal The executor routes: /start, /resume, /retry, /sse, /status, /interrupt, /abort, /submit-tool-result, /workspace. */
export function executorRoutes(context: ServerContext): Hono<AgentServerEnvironment> {
  const app = new Hono<AgentServerEnvironment>();
  const { executor, stateStore } = context.options;

  // Starts a fresh session; for an existing session of the same principal it answers with that session's
  // current run instead (a remote caller repeating its deterministic start after a crash starts nothing). A valid
  // `traceparent` header puts the run in the caller's trace (a remote sub-agent's run under the calling tool span).
  app.post('/start', async (c) => {
    const body = await parseBody(c, startRequestSchema);
    const principal = c.get('principal');
    const agent = context.agents.get(body.agentType);
    if (agent === undefined) throw new AgentServerHttpError(404, 'AGENT_NOT_FOUND', 'This server does not run an agent of that type.');
    const sessionId = body.sessionId ?? `session-${randomUUID()}`;
    const existing = await stateStore.loadState(sessionId);
    if (existing !== null) {
      if (!owns(principal, existing) || existing.agentType !== agent.name) throw sessionNotFound();
      const handle = await executor.getHandle(agent, sessionId);
      if (handle === null) throw sessionNotFound();
      return c.json({ ...(await describeRun(context, handle)), created: false }, 200);
    }
    const handle = await executor.execute(agent, body.input, {
      sessionId,
      ...(principal === null ? {} : { userId: principal.id }),
      ...(body.tags === undefined ? {} : { tags: body.tags }),
      ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
      ...incomingTrace(c.req.raw),
    });
    // Lost a creation race to another principal: execute() returned a handle to their session.
    await context.ownedSession(principal, sessionId);
    return c.json({ ...(await describeRun(context, handle)), created: true }, 201);
  });

  app.post('/resume', async (c) => {
    const body = await parseBody(c, resumeRequestSchema);
    const state = await context.ownedSession(c.get('principal'), body.sessionId);
    const handle = await executor.resume(context.agentOf(state), body.sessionId, {
      ...(body.mode === undefined ? {} : { mode: body.mode }),
      ...(body.message === undefined ? {} : { message: body.message }),
      ...(body.checkpointId === undefined ? {} : { checkpointId: body.checkpointId }),
    });
    return c.json(await describeRun(context, handle), 200);
  });

  // A failed or aborted session runs again from its history (the executor's retry()).
  app.post('/retry', async (c) => {
    const body = await parseBody(c, retryRequestSchema);
    const state = await context.ownedSession(c.get('principal'), body.sessionId);
    const handle = await executor.retry(context.agentOf(state), body.sessionId);
    return c.json(await describeRun(context, handle), 200);
  });

  app.get('/sse', sseRoute(context));

  // The session and the open human calls of its whole tree (a root's sub-agents at any depth; bounded, see treeOpenCalls).
  app.get('/status', async (c) => {
    const { sessionId } = parseQuery(c, statusQuerySchema);
    const state = await context.ownedSession(c.get('principal'), sessionId);
    return c.json(await statusOfSession(context, state), 200);
  });

  app.post('/interrupt', async (c) => {
    const body = await parseBody(c, controlRequestSchema);
    const state = await context.ownedSession(c.get('principal'), body.sessionId);
    await interruptRun(context, state, body.reason);
    return c.json({ sessionId: body.sessionId, status: 'interrupt_requested' }, 202);
  });

  app.post('/abort', async (c) => {
    const body = await parseBody(c, controlRequestSchema);
    const state = await context.ownedSession(c.get('principal'), body.sessionId);
    await abortRun(context, state, body.reason);
    return c.json({ sessionId: body.sessionId, status: 'aborted' }, 200);
  });

  app.post('/submit-tool-result', async (c) => {
    const body = await parseBody(c, submitRequestSchema);
    const state = await context.ownedSession(c.get('principal'), body.sessionId);
    const { responses, handle } = await submitAndContinue(context, state, [body]);
    const continued = handle === null ? {} : { run: await describeRun(context, handle) };
    return c.json({ ...responses[0], ...continued }, 200);
  });

  app.get('/workspace', (c) => {
    if (executor.describeCapabilities().workspaceProviderKinds.length === 0) {
      throw new AgentServerHttpError(404, 'RUNTIME_NO_WORKSPACE_SUPPORT', 'This runtime does not support workspaces.');
    }
    return c.json({ workspaceProviderKinds: executor.describeCapabilities().workspaceProviderKinds }, 200);
  });

  return app;
}
