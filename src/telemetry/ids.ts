/**
 * Deterministic span and trace ids. A run's spans are emitted when their work ends, possibly in another process than
 * the one that began it (a crash, a park, a queue): their ids come from the run's identity, never from the process,
 * so every process, and every replay, names the same span the same way.
 */

/**
 * cyrb128 (public domain): four 32-bit lanes over the key's UTF-16 code units, mixed. Not cryptographic, and need not
 * be: ids must be stable and spread, not secret; a sha256 per id cost more than the rest of a span. Split in two so a
 * key's common start is absorbed once: {@link absorb} (resumable, from {@link SEED}), then {@link hexOf} mixes.
 */
type Lanes = readonly [number, number, number, number];

const SEED: Lanes = [1779033703, 3144134277, 1013904242, 2773480762];

/** The lanes after `from` has absorbed `key`'s code units. */
function absorb(from: Lanes, key: string): Lanes {
  let [h1, h2, h3, h4] = from;
  for (let index = 0; index < key.length; index += 1) {
    const code = key.charCodeAt(index);
    h1 = h2 ^ Math.imul(h1 ^ code, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ code, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ code, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ code, 2716044179);
  }
  return [h1, h2, h3, h4];
}

/** A 16- or 32-digit lowercase hex id of absorbed lanes, mixed (never all zeros: invalid in W3C trace context). */
function hexOf(absorbed: Lanes, length: 16 | 32): string {
  let [h1, h2, h3, h4] = absorbed;
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  // No array per id: the lanes straight to hex (a tool call's id is computed on its step's path).
  const hex = length === 16 ? hex8(h1) + hex8(h2) : hex8(h1) + hex8(h2) + hex8(h3) + hex8(h4);
  const any = length === 16 ? h1 | h2 : h1 | h2 | h3 | h4;
  return any === 0 ? `${hex.slice(0, -1)}1` : hex;
}

/** A lane as 8 lowercase hex digits. */
function hex8(lane: number): string {
  return (lane >>> 0).toString(16).padStart(8, '0');
}

/**
 * Ids asked for again and again, by the one part that varies (a session's trace id by each of its spans, a run's span
 * id by its children): one cache per kind, so a run's many tool calls (each its own id) never push them out.
 */
class RecentIds {
  private readonly ids = new Map<string, string>();

  constructor(
    private readonly prefix: string,
    private readonly length: 16 | 32,
  ) {}

  of(part: string): string {
    const known = this.ids.get(part);
    if (known !== undefined) return known;
    // The key as it always was (the parts joined by NUL): ids stay the same across versions and processes.
    const id = hexOf(absorb(SEED, `${this.prefix}\u0000${part}`), this.length);
    if (this.ids.size >= RECENT_IDS) this.ids.clear();
    this.ids.set(part, id);
    return id;
  }
}

const RECENT_IDS = 4_096;
const traceIds = new RecentIds('helix.trace', 32);
const runSpanIds = new RecentIds('helix.run', 16);
const sessionRootSpanIds = new RecentIds('helix.session', 16);
/** Each calling session's lanes after `helix.tool NUL <session> NUL`: a call's id then hashes only its call id. */
const toolSessions = new Map<string, Lanes>();

/**
 * The trace id of a session tree: one trace per root session, whatever its runs, processes and days.
 *
 * @example
 * sessionTraceId('s1'); // 32 lowercase hex digits, the same in every process
 */
export function sessionTraceId(rootSessionId: string): string {
  return traceIds.of(rootSessionId);
}

/**
 * The span id of a run's `invoke_agent` span (its chat and tool spans are its children; a resumed run links to it).
 *
 * @example
 * runSpanId('run-1'); // 16 lowercase hex digits
 */
export function runSpanId(runId: string): string {
  return runSpanIds.of(runId);
}

/**
 * The span id of a tool call's `execute_tool` span (a sub-agent's `invoke_agent` spans are its children). Keyed by
 * the calling session and the call id (unique in a session, as its sub-agent's session id already assumes), so every
 * run of the caller that carries the call on names the same span.
 *
 * @example
 * toolSpanId('s1', 'call_1');
 */
export function toolSpanId(sessionId: string, toolCallId: string): string {
  let session = toolSessions.get(sessionId);
  if (session === undefined) {
    if (toolSessions.size >= RECENT_IDS) toolSessions.clear();
    session = absorb(SEED, `helix.tool\u0000${sessionId}\u0000`);
    toolSessions.set(sessionId, session);
  }
  return hexOf(absorb(session, toolCallId), 16);
}

/**
 * The span id of a session's virtual root: the parent of its top-level runs when no `HelixIdGenerator` lets a run
 * span be a root of the session's trace itself (backends show it as a missing parent).
 *
 * @example
 * sessionRootSpanId('s1');
 */
export function sessionRootSpanId(rootSessionId: string): string {
  return sessionRootSpanIds.of(rootSessionId);
}

/** W3C `traceparent` (version 00) of a sampled span. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * The trace and parent span a W3C `traceparent` header names, or undefined for a malformed or all-zero one.
 *
 * @example
 * parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'); // { traceId: '0af7…', parentSpanId: 'b7ad…' }
 */
export function parseTraceparent(header: string | undefined | null): { traceId: string; parentSpanId: string } | undefined {
  if (typeof header !== 'string' || header.length !== 55) return undefined;
  const match = TRACEPARENT.exec(header);
  if (match === null || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return { traceId: match[1]!, parentSpanId: match[2]! };
}

/**
 * A W3C `traceparent` header for a sampled span.
 *
 * @example
 * formatTraceparent(sessionTraceId('s1'), toolSpanId('run-1', 'call_1')); // '00-…-…-01'
 */
export function formatTraceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}
