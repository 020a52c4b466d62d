import type { Draft } from 'immer';
import type { z } from 'zod';

import type { AnyAgentConfig } from './agent-types.js';
import type { RemoteAgentTransport } from '../types/remote.js';
import type { CompanionAction } from './companion-action.js';

/**
 * What a tool's `execute` receives besides its validated input. Every member is process-local: a context
 * never crosses a durable step boundary.
 *
 * @example
 * execute: async ({ note }, context) => {
 *   context.updateState((draft) => { draft.notes.push(note); });
 *   context.emit('note_added', { count: context.getState().notes.length });
 *   return { saved: true };
 * }
 */
export interface ToolContext<TState = Record<string, unknown>> {
  /** The agent's custom state as this tool sees it (frozen: change it through `updateState`). */
  getState(): TState;
  /** Mutate the state through an Immer draft; the change is recorded as RFC 6902 patches and staged. */
  updateState(recipe: (draft: Draft<TState>) => void): void;
  /** Emit a `custom` stream chunk. Fire-and-forget: the runtime flushes emits before the tool step ends. */
  emit(eventName: string, data: unknown): void;
  /** Aborted when the run is aborted or the tool times out. */
  abortSignal: AbortSignal;
  sessionId: string;
  toolCallId: string;
  agentType: string;
}

/**
 * The server-side implementation of a tool.
 *
 * @example
 * const execute: ToolExecuteFunction<{ city: string }, { celsius: number }> = async ({ city }) => ({ celsius: 21 });
 */
export type ToolExecuteFunction<TInput, TResult, TState = Record<string, unknown>> = (
  input: TInput,
  context: ToolContext<TState>,
) => Promise<TResult>;

/**
 * Predicate form of `requireApproval`: return true to make the user approve this call first. It runs inside a
 * durable step; a throw counts as "approval required".
 *
 * @example
 * const predicate: ApprovalPredicate<{ amount: number }> = ({ amount }) => amount > 100;
 */
export type ApprovalPredicate<TInput, TState = Record<string, unknown>> = (
  input: TInput,
  context: ToolContext<TState>,
) => boolean | Promise<boolean>;

/**
 * What a tool is, which decides how the loop runs it.
 *
 * @example
 * if (tool.kind === 'client') { /* wait for submitToolResult *\/ }
 */
export type ToolKind = 'server' | 'client' | 'finish' | 'subagent' | 'remote' | 'companion';

/**
 * Fields every tool carries.
 *
 * @example
 * const names = agent.tools.map((tool: ToolBase) => tool.name);
 */
export interface ToolBase<TSchema extends z.ZodType = z.ZodType> {
  readonly kind: ToolKind;
  /** Provider-safe name, `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  readonly description: string;
  /** Zod schema of the arguments; the model sees its JSON Schema. */
  readonly parameters: TSchema;
}

/**
 * A tool the runtime executes (optionally approval-gated, optionally completing the run with its result).
 *
 * @example
 * const tool: ServerTool = defineTool({ name: 'now', description: 'Current time', parameters: z.object({}), execute: async () => Date.now() });
 */
export interface ServerTool<TSchema extends z.ZodType = z.ZodType, TResult = unknown, TState = Record<string, unknown>>
  extends ToolBase<TSchema> {
  readonly kind: 'server';
  readonly execute: ToolExecuteFunction<z.output<TSchema>, TResult, TState>;
  /** `true` always asks the user first; a predicate decides per call. Absent or `false`: never. */
  readonly requireApproval?: boolean | ApprovalPredicate<z.output<TSchema>, TState>;
  /** When true, a successful call completes the run and its result is the output (phase 2 of the step). */
  readonly finishWith: boolean;
  /** Per-call time limit in milliseconds. */
  readonly timeoutMs?: number;
  /** Defined with `defineTransactionalTool`: runs exactly once in a transaction on the executor's `appDatabase`. */
  readonly transactional?: boolean;
}

/**
 * A tool the client executes (`execute: 'client'`): the run waits for `submitToolResult`.
 *
 * @example
 * const pick: ClientTool = defineTool({ name: 'pick_file', description: 'Ask the user for a file', parameters: z.object({}), execute: 'client' });
 */
export interface ClientTool<TSchema extends z.ZodType = z.ZodType> extends ToolBase<TSchema> {
  readonly kind: 'client';
  readonly execute: 'client';
  /** How long the run waits for the client's result, in milliseconds. */
  readonly timeoutMs?: number;
}

/**
 * The auto-injected `__finish__` tool: its parameters are the agent's `outputSchema`.
 *
 * @example
 * const finish = buildEffectiveTools(agent).find((tool): tool is FinishTool => tool.kind === 'finish');
 */
export interface FinishTool<TSchema extends z.ZodType = z.ZodType> extends ToolBase<TSchema> {
  readonly kind: 'finish';
}

/**
 * A tool that delegates to a child agent (`subagent__${agent.name}`); the child's output is the tool result.
 *
 * @example
 * const tool: SubAgentTool = createSubAgentTool(summarizer, z.object({ text: z.string() }));
 */
export interface SubAgentTool<TSchema extends z.ZodType = z.ZodType> extends ToolBase<TSchema> {
  readonly kind: 'subagent';
  readonly _isSubAgentTool: true;
  /** The child agent (always has an `outputSchema`). */
  readonly agent: AnyAgentConfig;
  /** The child's agent type (= `agent.name`). */
  readonly agentType: string;
}

/**
 * A tool that delegates to an agent in another service through a `RemoteAgentTransport`
 * (`createRemoteSubAgentTool`); the remote agent's output is the tool result.
 *
 * @example
 * const tool: RemoteSubAgentTool = createRemoteSubAgentTool({ agentType: 'researcher', inputSchema: z.object({ topic: z.string() }), transport });
 */
export interface RemoteSubAgentTool<TSchema extends z.ZodType = z.ZodType> extends ToolBase<TSchema> {
  readonly kind: 'remote';
  readonly _isRemoteSubAgent: true;
  /** The agent type the remote server runs. */
  readonly agentType: string;
  readonly transport: RemoteAgentTransport;
  /** Validates the remote output when set (a mismatch is a tool error). */
  readonly outputSchema?: z.ZodType;
  /** Longest wait for the remote run, in ms, after which it is interrupted and the call fails. */
  readonly timeoutMs: number;
  /** Length of one durable stream window (one checkpointed step), in ms. */
  readonly streamWindowMs: number;
  /** How long the remote server may stay unreachable before the call fails, in ms. */
  readonly unreachableTimeoutMs: number;
}

/**
 * An auto-injected `companion__*` tool managing persistent sub-agents.
 *
 * @example
 * if (tool.kind === 'companion' && tool.companionAction === 'spawnAgent') { /* start a child *\/ }
 */
export interface CompanionTool<TSchema extends z.ZodType = z.ZodType> extends ToolBase<TSchema> {
  readonly kind: 'companion';
  readonly _isCompanionTool: true;
  readonly companionAction: CompanionAction;
}

/**
 * A tool a user defines with `defineTool`.
 *
 * @example
 * const tools: UserTool[] = [searchTool, pickFileTool];
 */
export type UserTool = ServerTool<any, any, any> | ClientTool<any>;

/**
 * Any tool an agent can carry or have injected.
 *
 * @example
 * function describe(tool: AgentTool): string { return `${tool.kind}:${tool.name}`; }
 */
export type AgentTool = UserTool | FinishTool<any> | SubAgentTool<any> | RemoteSubAgentTool<any> | CompanionTool<any>;
