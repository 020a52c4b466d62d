/**
 * `npm run example:telemetry` (examples/telemetry.ts) end to end against a real OTLP/HTTP receiver: a node:http server
 * on 127.0.0.1 takes what the example's OpenTelemetry Node SDK exports, and the run's spans must be there with their
 * deterministic ids, parentage and GenAI attributes. No span received, a wrong id or a lost parent fails the test.
 *
 * `@opentelemetry/exporter-trace-otlp-http` posts JSON (`Content-Type: application/json`, `JsonTraceSerializer`), and
 * its JSON encoder (`otlp-transformer`'s `JSON_ENCODER.encodeSpanContext`) writes trace and span ids as lowercase hex,
 * as OTLP/JSON requires (not protobuf-JSON's base64): ids are compared as hex, and anything else fails.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HEX_TRACE_ID = /^[0-9a-f]{32}$/;
const HEX_SPAN_ID = /^[0-9a-f]{16}$/;
/** OTLP's SpanKind enum (the API's kind + 1). */
const KIND = { internal: 1, client: 3 } as const;

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
}
interface TraceRequest {
  resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ scope?: { name: string }; spans?: OtlpSpan[] }> }>;
}
interface MetricRequest {
  resourceMetrics?: Array<{ scopeMetrics?: Array<{ scope?: { name: string }; metrics?: Array<{ name: string }> }> }>;
}
interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}
/** A received span with its scope and its resource's service name. */
interface ExportedSpan extends OtlpSpan {
  scope: string | undefined;
  service: unknown;
  attrs: Record<string, unknown>;
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, plain(entry.value)]));
}

/** An OTLP/HTTP receiver: records every POST and answers 200 `{}` (an empty, successful export response). */
async function startReceiver(): Promise<{ endpoint: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !/^\/v1\/(traces|metrics|logs)$/.test(request.url ?? '')) {
        response.writeHead(404).end();
        return;
      }
      received.push({ path: request.url!, contentType: request.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<void> => new Promise((resolve) => server.close(() => resolve()));
  return { endpoint: `http://127.0.0.1:${port}`, received, close };
}

function exportedSpans(received: Received[]): ExportedSpan[] {
  return received
    .filter((request) => request.path === '/v1/traces')
    .flatMap((request) => (JSON.parse(request.body) as TraceRequest).resourceSpans ?? [])
    .flatMap((resourceSpans) => {
      const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
      return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
        (scopeSpans.spans ?? []).map((span) => ({ ...span, scope: scopeSpans.scope?.name, service, attrs: attributesOf(span.attributes) })),
      );
    });
}

function exportedMetricNames(received: Received[]): string[] {
  return received
    .filter((request) => request.path === '/v1/metrics' && request.contentType === 'application/json')
    .flatMap((request) => (JSON.parse(request.body) as MetricRequest).resourceMetrics ?? [])
    .flatMap((resource) => (resource.scopeMetrics ?? []).filter((scope) => scope.scope?.name === 'helix-agents-dbos'))
    .flatMap((scope) => (scope.metrics ?? []).map((metric) => metric.name));
}

/** The example's environment: the test database, the receiver, metrics as JSON, the scripted model. */
function exampleEnvironment(databaseUrl: string, endpoint: string): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(environment)) if (key.startsWith('OTEL_') || key.startsWith('OPENAI_')) delete environment[key];
  delete environment.NODE_OPTIONS;
  return {
    ...environment,
    DATABASE_URL: databaseUrl,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
    OTEL_LOGS_EXPORTER: 'none',
  };
}

let database: TestDatabase | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterAll(async () => {
  await receiver?.close();
  await database?.drop();
});

describe('examples/telemetry.ts', () => {
  it('exports the run as invoke_agent, chat and execute_tool spans over OTLP/HTTP, in the session trace, with GenAI attributes', async () => {
    database = await createTestDatabase('telemetry_example');
    receiver = await startReceiver();
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/telemetry.ts'], {
      cwd: ROOT,
      env: exampleEnvironment(database.url, receiver.endpoint),
      timeout: 60_000,
    });
    expect(stdout).toContain('Result: completed after 2 steps');
    expect(stdout).toContain('OpenTelemetry SDK shut down (spans flushed).');
    const sessionId = /^session: (\S+)$/m.exec(stdout)?.[1];
    const runId = /^run: (\S+)$/m.exec(stdout)?.[1];
    expect(sessionId).toMatch(/^telemetry-/);
    expect(runId).toMatch(/^run-/);
    const traceId = sessionTraceId(sessionId!);
    const runSpan = runSpanId(runId!);
    expect(stdout).toContain(`trace: ${traceId}`);

    // Traces arrived as OTLP/JSON.
    const traceRequests = receiver.received.filter((request) => request.path === '/v1/traces');
    expect(traceRequests.length).toBeGreaterThan(0);
    for (const request of traceRequests) expect(request.contentType).toBe('application/json');
    const all = exportedSpans(receiver.received);
    for (const span of all) {
      expect(span.traceId).toMatch(HEX_TRACE_ID);
      expect(span.spanId).toMatch(HEX_SPAN_ID);
    }

    // The run's spans, all in the session's trace, each once.
    const spans = all.filter((span) => span.traceId === traceId);
    const names = ['chat mock-model', 'chat mock-model', 'execute_tool get_weather', 'invoke_agent telemetry_weather'];
    expect(spans.map((span) => span.name).sort()).toEqual(names);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
    for (const span of spans) {
      expect(span.scope).toBe('helix-agents-dbos');
      expect(span.service).toBe('helix-telemetry-example');
      expect(span.attrs).toMatchObject({ 'gen_ai.conversation.id': sessionId, 'helix.session.id': sessionId, 'helix.run.id': runId });
    }

    // The run's span: the top of the session's trace (HelixIdGenerator), under the run's deterministic id.
    const run = spans.find((span) => span.name.startsWith('invoke_agent '))!;
    expect(run.spanId).toBe(runSpan);
    expect(run.parentSpanId ?? '').toBe('');
    expect(run.kind).toBe(KIND.internal);
    expect(run.attrs).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'telemetry_weather',
      'helix.run.status': 'completed',
      'helix.run.completion_reason': 'text_response',
      'helix.run.step_count': 2,
    });

    // Two LLM calls under the run, client spans with the GenAI request, response and usage attributes; no content.
    const stepOf = (span: ExportedSpan): number => Number(span.attrs['helix.step']);
    const chats = spans.filter((span) => span.name.startsWith('chat ')).sort((a, b) => stepOf(a) - stepOf(b));
    expect(chats.map((span) => span.attrs['helix.step'])).toEqual([1, 2]);
    expect(chats.map((span) => span.attrs['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(runSpan);
      expect(chat.kind).toBe(KIND.client);
      expect(chat.attrs).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'mock',
        'gen_ai.request.model': 'mock-model',
        'gen_ai.response.model': 'mock-model',
        'helix.attempt': 1,
      });
      expect(chat.attrs['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
      expect(chat.attrs['gen_ai.usage.output_tokens']).toEqual(expect.any(Number));
      expect(chat.attrs['gen_ai.input.messages']).toBeUndefined();
      expect(chat.attrs['gen_ai.output.messages']).toBeUndefined();
    }

    // The tool call under the run, under its id from the session and the call id.
    const tool = spans.find((span) => span.name === 'execute_tool get_weather')!;
    expect(tool.spanId).toBe(toolSpanId(sessionId!, 'call_weather'));
    expect(tool.parentSpanId).toBe(runSpan);
    expect(tool.attrs).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_weather',
      'gen_ai.tool.type': 'function',
      'helix.tool.outcome': 'success',
      'helix.step': 1,
      'helix.attempt': 1,
    });
    expect(tool.attrs['gen_ai.tool.call.arguments']).toBeUndefined();

    // The metrics went out too: the executor, constructed after sdk.start(), took the SDK's meter.
    const metrics = ['gen_ai.client.operation.duration', 'gen_ai.client.token.usage', 'helix.tool.duration', 'helix.agent.runs'];
    metrics.push('helix.sessions.waiting_for_human');
    expect(exportedMetricNames(receiver.received)).toEqual(expect.arrayContaining(metrics));
  }, 90_000);
});
