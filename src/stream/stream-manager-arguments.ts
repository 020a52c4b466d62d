import { guardArguments, objectFields, optionalIdArgument, idArgument, type ArgumentRule, type MethodArgumentRules } from '../store/index.js';
import { assertStreamId } from './stream-id.js';
import type { StreamManager } from './stream-manager.js';

const streamId: ArgumentRule = (value) => assertStreamId(value);

/**
 * The id arguments of the `StreamManager` methods that take more than a stream id first (the default of
 * {@link guardStreamManagerArguments}), or none: an agent id is a session id (`assertStoredId`, up to 2,048 bytes).
 *
 * @example
 * STREAM_MANAGER_ARGUMENTS.createWriter; // [streamId, agentId]
 */
export const STREAM_MANAGER_ARGUMENTS = {
  createWriter: [streamId, idArgument('agentId')],
  cleanupToStep: [streamId, undefined, objectFields({ agentId: optionalIdArgument('agentId') })],
  close: [],
  // Synchronous (returns the unsubscribe): it checks its stream id itself, throwing.
  onStreamEnd: [],
} as const satisfies Partial<Record<keyof StreamManager, MethodArgumentRules>>;

/**
 * Validate ids at the public boundary of a `StreamManager` implementation, the same rules for every manager: each
 * method's first argument is a stream id (`assertStreamId`) unless {@link STREAM_MANAGER_ARGUMENTS} (or `extra`, for
 * the implementation's own methods) says otherwise. A bad id rejects with InvalidArgumentError (`INVALID_ARGUMENT`)
 * before the backend is touched. Call it once, after the class.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` from the guarded methods.
 * @example
 * guardStreamManagerArguments(InMemoryStreamManager);
 */
export function guardStreamManagerArguments(
  target: abstract new (...args: never[]) => StreamManager,
  extra: Readonly<Record<string, MethodArgumentRules>> = {},
): void {
  guardArguments(target, { ...STREAM_MANAGER_ARGUMENTS, ...extra }, [streamId]);
}
