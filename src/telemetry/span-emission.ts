import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, trace } from '@opentelemetry/api';
import type { Attributes, Context, Link, Span, SpanOptions, Tracer } from '@opentelemetry/api';
import { clearSpanIds, pendSpanIds, withSpanIds } from './id-generator.js';
import { runSpanId, sessionRootSpanId, sessionTraceId, toolSpanId } from './ids.js';
import { ERROR_TYPE } from './semconv.js';

/** Where a span of a run belongs: the run, its session tree and the trace a remote caller passed. */
export interface SpanScope {
  sessionId: string;
  runId: string;
  agentType: string;
  rootSessionId?: string;
  /** The trace of a run started by a remote caller (`traceparent`): its spans join the caller's trace. */
  trace?: { traceId: string; parentSpanId: string };
}

/**
 * The trace a run's spans go to: the one a remote caller passed, else its session tree's.
 *
 * @example
 * const traceId = traceIdOf(scope); // sessionTraceId(rootSessionId) for a run nobody called from afar
 */
export function traceIdOf(scope: Pick<SpanScope, 'sessionId' | 'rootSessionId' | 'trace'>): string {
  return scope.trace?.traceId ?? sessionTraceId(scope.rootSessionId ?? scope.sessionId);
}

/**
 * Where a run that a tool call starts (a companion turn, a remote sub-agent's run) belongs: the caller's trace, under
 * the call's `execute_tool` span.
 *
 * @example
 * const trace = toolCallTrace(scope, call.toolCallId); // { traceId, parentSpanId: toolSpanId(sessionId, callId) }
 */
export function toolCallTrace(scope: Pick<SpanScope, 'sessionId' | 'rootSessionId' | 'trace'>, toolCallId: string): { traceId: string; parentSpanId: string } {
  return { traceId: traceIdOf(scope), parentSpanId: toolSpanId(scope.sessionId, toolCallId) };
}

/** A span already over: its name, times and attributes. */
export interface EndedSpan {
  name: string;
  startTime: number;
  endTime: number;
  /**
   * The attributes a sampler may decide on, given when the span starts (semconv: `gen_ai.operation.name`, provider,
   * request model): a shared set, never written to.
   */
  sampling?: Attributes;
  /** The others, set once the span started (the SDK checks and copies a start's attributes twice more). */
  attributes: Attributes;
  /** The span's own id when others refer to it (a run, a tool that calls a sub-agent). */
  spanId?: string;
  /** Parent span id; default: the run's span. */
  parentSpanId?: string;
  /** No parent: the top of the session's trace (a top-level run). */
  root?: boolean;
  links?: Link[];
  events?: Array<{ name: string; time: number; attributes?: Attributes }>;
  error?: { type: string; message?: string };
  kind?: SpanKind;
}

/** The id a probe span asks for: a provider that hands it out honors our ids (it uses `HelixIdGenerator`). */
const PROBE_SPAN_ID = '4865c1780b5e1d00';

/**
 * Whether `tracer`'s provider gives our spans the ids we ask for. Probed once per tracer with a span under an
 * unsampled parent (a parent-based sampler does not record it, so no processor sees it; it is never ended).
 */
export function honorsSpanIds(tracer: Tracer): boolean {
  const unsampled = trace.setSpanContext(ROOT_CONTEXT, { traceId: sessionTraceId('helix.probe'), spanId: sessionRootSpanId('helix.probe'), traceFlags: TraceFlags.NONE, isRemote: true });
  const probe = withSpanIds({ spanId: PROBE_SPAN_ID }, () => tracer.startSpan('helix.id_probe', {}, unsampled));
  return probe.spanContext().spanId === PROBE_SPAN_ID;
}

/**
 * Start one span that is over, with its attributes, events and status: the caller ends it (at `ended.endTime`). With
 * ids honored: under its deterministic id and parent (a top-level run a root of the session's trace). Without (no
 * `HelixIdGenerator` in the provider): every span of the session a child of its virtual root, so no span names a
 * parent that does not exist; links to other runs are dropped for the same reason.
 */
export function startEndedSpan(tracer: Tracer, scope: SpanScope, ended: EndedSpan, idsHonored: boolean): Span {
  const options: SpanOptions = { kind: ended.kind ?? SpanKind.INTERNAL, startTime: ended.startTime };
  if (ended.sampling !== undefined) options.attributes = ended.sampling;
  // ROOT_CONTEXT holds no span: a top-level run needs no `root` option (the SDK would copy the context to drop one).
  let parent = ROOT_CONTEXT;
  if (!idsHonored) parent = parentContext(traceIdOf(scope), virtualRootOf(scope));
  else if (ended.root !== true) parent = ended.parentSpanId === undefined ? runContextOf(scope) : parentContext(traceIdOf(scope), ended.parentSpanId);
  if (idsHonored && ended.links !== undefined) options.links = ended.links;
  let span: Span;
  if (ended.spanId === undefined) span = tracer.startSpan(ended.name, options, parent);
  else {
    // One synchronous startSpan takes the ids (HelixIdGenerator); nothing else can start a span in between.
    pendSpanIds(traceIdOf(scope), ended.spanId);
    try {
      span = tracer.startSpan(ended.name, options, parent);
    } finally {
      clearSpanIds();
    }
  }
  span.setAttributes(ended.attributes);
  const events = ended.events;
  if (events !== undefined) for (const event of events) span.addEvent(event.name, event.attributes ?? {}, event.time);
  if (ended.error !== undefined) {
    span.setAttribute(ERROR_TYPE, ended.error.type);
    span.setStatus(ended.error.message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: ended.error.message });
  }
  return span;
}

/** Each run's span context (the parent of its chat and tool spans), by run id, checked against the scope's trace. */
const runContexts = new Map<string, { traceId: string; context: Context }>();

/** The context whose span is the scope's run span: the parent of the run's chat and tool spans. */
function runContextOf(scope: SpanScope): Context {
  const traceId = traceIdOf(scope);
  const known = runContexts.get(scope.runId);
  if (known !== undefined && known.traceId === traceId) return known.context;
  const created = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: runSpanId(scope.runId), traceFlags: TraceFlags.SAMPLED, isRemote: true });
  if (runContexts.size >= PARENT_CONTEXTS) runContexts.clear();
  runContexts.set(scope.runId, { traceId, context: created });
  return created;
}

/** The session's virtual root: the parent of every span when the provider does not honor our ids. */
function virtualRootOf(scope: SpanScope): string {
  return scope.trace?.parentSpanId ?? sessionRootSpanId(scope.rootSessionId ?? scope.sessionId);
}

/** Parent contexts by parent span id (a run's span is the parent of all its chat and tool spans); contexts are immutable. */
const parentContexts = new Map<string, { traceId: string; context: Context }>();
const PARENT_CONTEXTS = 1_024;

/** A context whose active span is the given (remote, sampled) span: the parent of a span started in it. */
function parentContext(traceId: string, spanId: string): Context {
  const known = parentContexts.get(spanId);
  if (known !== undefined && known.traceId === traceId) return known.context;
  const created = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  if (parentContexts.size >= PARENT_CONTEXTS) parentContexts.clear();
  parentContexts.set(spanId, { traceId, context: created });
  return created;
}

/**
 * Run `start` (a DBOS workflow start) with the run's span as the active context, so that DBOS's own workflow span
 * (with DBOS tracing on) is a child of the run's `invoke_agent` span, in the session's trace. Ids must be honored: the
 * run's span must come to exist under that id.
 */
export function inRunContext<T>(scope: SpanScope, start: () => T): T {
  return context.with(runContextOf(scope), start);
}
