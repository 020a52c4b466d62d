/**
 * Fair tenants over HTTP: an agent on a partitioned DBOS queue, served by `AgentServer`, runs each principal's
 * sessions on that principal's partition (the server passes the principal as `userId`).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { jsonOf, startServerKit, type ServerKit } from './support/server-kit.js';

const tenantAgent = defineAgent({ name: 'tenant_assistant', systemPrompt: 'Help.', maxSteps: 2, queue: 'tenant_turns' });

let kit: ServerKit;
beforeAll(async () => {
  kit = await startServerKit('server_tenants', { agents: [tenantAgent], chat: { agent: tenantAgent } });
  await DBOS.registerQueue('tenant_turns', { minPollingIntervalMs: 20, partitionConcurrency: 1 });
});
afterAll(async () => {
  await kit?.close();
});

describe('an agent on a partitioned queue behind AgentServer', () => {
  it("runs each principal's sessions on the principal's partition", async () => {
    const started = await Promise.all(
      [['token-alice', 'alice-1'], ['token-bob', 'bob-1'], ['token-alice', 'alice-2']].map(async ([token, sessionId]) => {
        const response = await kit.call('/start', { token, body: { agentType: 'tenant_assistant', sessionId, input: 'hello there' } });
        expect(response.status).toBe(201);
        return { sessionId: sessionId!, body: await jsonOf(response) };
      }),
    );
    for (const { sessionId } of started) {
      const handle = await kit.runtime.executor.getHandle(tenantAgent, sessionId);
      expect((await handle!.result()).status).toBe('completed');
      const status = await DBOS.getWorkflowStatus(handle!.workflowId);
      expect([status?.queueName, status?.queuePartitionKey]).toEqual(['tenant_turns', sessionId.startsWith('alice') ? 'alice' : 'bob']);
    }
  });
});
