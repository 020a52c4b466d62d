import type { z } from 'zod';
import type { RemoteSubAgentTool } from '../agent/tool-types.js';
import { reservedToolNameReason, TOOL_NAME_PATTERN } from '../agent/tool-names.js';
import { isZodSchema, toObjectJsonSchema } from '../agent/zod-schema.js';
import { ConfigurationError } from '../errors/index.js';
import type { RemoteAgentTransport } from '../types/remote.js';

/**
 * Prefix of the default name of a remote sub-agent tool: `remote__${agentType}`.
 *
 * @example
 * createRemoteSubAgentTool({ agentType: 'researcher', inputSchema, transport }).name === `${REMOTE_TOOL_PREFIX}researcher`; // true
 */
export const REMOTE_TOOL_PREFIX = 'remote__';

/**
 * Options of `createRemoteSubAgentTool`.
 *
 * @example
 * const options: RemoteSubAgentToolOptions = { agentType: 'researcher', inputSchema: z.object({ topic: z.string() }), transport };
 */
export interface RemoteSubAgentToolOptions<TSchema extends z.ZodType> {
  /** The agent type the remote server runs (its `/start` `agentType`). */
  agentType: string;
  /** Zod object schema of the arguments; the validated input is sent as JSON text (message) and as initial state. */
  inputSchema: TSchema;
  transport: RemoteAgentTransport;
  /** Tool name. Default `remote__${agentType}`. */
  name?: string;
  /** What the model reads. Default: a delegation sentence naming the agent type. */
  description?: string;
  /** When set, the remote output must match it (else the call is a tool error). */
  outputSchema?: z.ZodType;
  /** Longest wait for the remote run (then it is interrupted and the call fails). Default 30 minutes. */
  timeoutMs?: number;
  /** Length of one durable stream window (each window is a checkpointed step recording progress). Default 30 s. */
  streamWindowMs?: number;
  /** How long the remote server may stay unreachable before the call fails. Default 2 minutes. */
  unreachableTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_WINDOW_MS = 30_000;
const DEFAULT_UNREACHABLE_MS = 2 * 60_000;

/**
 * Create a tool that delegates to an agent served by an `AgentServer` in another service. Calls run on their own
 * durable path: the remote session id is `${parentSessionId}-remote-${toolCallId}`, the remote stream is proxied
 * into the parent's stream exactly once, the parent's `SubSessionRef` records `remote: { streamId, lastSequence }`,
 * and a parent recovered after a crash asks the remote server for the status instead of starting again.
 * Client-executed tools inside the remote agent fail the call (`RemoteSubAgentClientToolUnsupportedError`).
 *
 * @throws ConfigurationError `INVALID_TOOL_CONFIG` for a bad name, agent type, schema, transport or time limit.
 * @example
 * const research = createRemoteSubAgentTool({
 *   agentType: 'researcher',
 *   inputSchema: z.object({ topic: z.string() }),
 *   transport: new HttpRemoteAgentTransport({ url: 'https://agents.internal', headers: { authorization: `Bearer ${token}` } }),
 * });
 * const coordinator = defineAgent({ name: 'coordinator', systemPrompt: 'Delegate research.', tools: [research] });
 */
export function createRemoteSubAgentTool<TSchema extends z.ZodType>(options: RemoteSubAgentToolOptions<TSchema>): RemoteSubAgentTool<TSchema> {
  if (typeof options !== 'object' || options === null) throw toolError('createRemoteSubAgentTool expects an options object.');
  const { agentType, transport } = options;
  if (typeof agentType !== 'string' || !/^[A-Za-z0-9_.:-]{1,200}$/.test(agentType)) {
    throw toolError('createRemoteSubAgentTool: agentType must be 1–200 characters of [A-Za-z0-9_.:-].');
  }
  const name = options.name ?? `${REMOTE_TOOL_PREFIX}${agentType}`;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw toolError(`Remote sub-agent "${agentType}": the tool name must match ${String(TOOL_NAME_PATTERN)}; pass a shorter name.`);
  }
  const reserved = reservedToolNameReason(name);
  if (reserved !== undefined) throw toolError(`Remote sub-agent "${agentType}": ${reserved}.`, name);
  if (!isZodSchema(options.inputSchema) || toObjectJsonSchema(options.inputSchema) === undefined) {
    throw toolError(`Remote sub-agent "${agentType}": inputSchema must be a zod object schema representable as JSON Schema.`, name);
  }
  if (options.outputSchema !== undefined && !isZodSchema(options.outputSchema)) {
    throw toolError(`Remote sub-agent "${agentType}": outputSchema must be a zod schema.`, name);
  }
  const methods = ['start', 'stream', 'getStatus', 'interrupt', 'abort'] as const;
  if (typeof transport !== 'object' || transport === null || methods.some((method) => typeof transport[method] !== 'function')) {
    throw toolError(`Remote sub-agent "${agentType}": transport must implement start, stream, getStatus, interrupt and abort.`, name);
  }
  const description = options.description ?? `Delegate a task to the remote "${agentType}" agent and get its result.`;
  if (typeof description !== 'string' || description.trim() === '') throw toolError(`Remote sub-agent "${agentType}": description must be a non-empty string.`, name);
  return Object.freeze({
    kind: 'remote' as const,
    _isRemoteSubAgent: true as const,
    name,
    description,
    parameters: options.inputSchema,
    agentType,
    transport,
    ...(options.outputSchema === undefined ? {} : { outputSchema: options.outputSchema }),
    timeoutMs: positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs', name),
    streamWindowMs: positive(options.streamWindowMs, DEFAULT_WINDOW_MS, 'streamWindowMs', name),
    unreachableTimeoutMs: positive(options.unreachableTimeoutMs, DEFAULT_UNREACHABLE_MS, 'unreachableTimeoutMs', name),
  });
}

/**
 * True for a tool made by `createRemoteSubAgentTool` (checks its `_isRemoteSubAgent` marker).
 *
 * @example
 * const remote = agent.tools.filter(isRemoteSubAgentTool);
 */
export function isRemoteSubAgentTool(tool: unknown): tool is RemoteSubAgentTool {
  return typeof tool === 'object' && tool !== null && (tool as { _isRemoteSubAgent?: unknown })._isRemoteSubAgent === true;
}

function positive(value: number | undefined, fallback: number, field: string, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw toolError(`Remote sub-agent tool "${name}": ${field} must be a positive integer (ms).`, name);
  return value;
}

function toolError(message: string, toolName?: string): ConfigurationError {
  return new ConfigurationError('INVALID_TOOL_CONFIG', message, toolName === undefined ? undefined : { toolName });
}
