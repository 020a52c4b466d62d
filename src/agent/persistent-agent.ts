import { ConfigurationError } from '../errors/index.js';
import type { AnyAgentConfig } from './agent-types.js';
import { isValidToolName } from './tool-names.js';

/**
 * How a parent relates to a persistent child: `blocking` waits for its result (`companion__waitForResult`),
 * `non-blocking` continues and is told about completion on a later turn.
 *
 * @example
 * const mode: PersistentAgentMode = 'non-blocking';
 */
export type PersistentAgentMode = 'blocking' | 'non-blocking';

/**
 * One entry of `persistentAgents`: an agent the parent may spawn as a long-lived companion.
 *
 * @example
 * const entry: PersistentAgentConfig = { agent: researcher, mode: 'non-blocking', description: 'Digs up sources' };
 */
export interface PersistentAgentConfig {
  /** The child agent; it must declare an `outputSchema` (companions complete through `__finish__`). */
  agent: AnyAgentConfig;
  mode: PersistentAgentMode;
  /** The agent type the model passes to `companion__spawnAgent`. Default `agent.name`. */
  name?: string;
  /** What the model reads about this agent. Default `agent.description`. */
  description?: string;
}

/**
 * A persistent agent entry with defaults applied.
 *
 * @example
 * const resolved: ResolvedPersistentAgent = { agent: researcher, mode: 'blocking', name: 'researcher', agentType: 'researcher' };
 */
export interface ResolvedPersistentAgent {
  readonly agent: AnyAgentConfig;
  readonly mode: PersistentAgentMode;
  /** Name the model uses to pick this agent. */
  readonly name: string;
  /** The child's agent type (`agent.name`). */
  readonly agentType: string;
  readonly description?: string;
}

/**
 * Validate `persistentAgents` and apply defaults.
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` for a non-agent entry, a bad mode, an invalid or
 *   duplicate name, or a child without `outputSchema`.
 * @example
 * const resolved = resolvePersistentAgents('parent', [{ agent: researcher, mode: 'blocking' }]);
 */
export function resolvePersistentAgents(
  parentName: string,
  entries: readonly PersistentAgentConfig[],
): readonly ResolvedPersistentAgent[] {
  const seen = new Set<string>();
  return Object.freeze(
    entries.map((entry, index) => {
      const where = `Agent "${parentName}": persistentAgents[${index}]`;
      if (typeof entry !== 'object' || entry === null || typeof entry.agent !== 'object' || entry.agent === null) {
        throw agentError(`${where} must be { agent, mode, name?, description? } with an agent from defineAgent.`, parentName);
      }
      if (entry.mode !== 'blocking' && entry.mode !== 'non-blocking') {
        throw agentError(`${where}: mode must be 'blocking' or 'non-blocking'.`, parentName);
      }
      if (entry.agent.outputSchema === undefined) {
        throw agentError(`${where}: a persistent agent must declare an outputSchema (it completes through __finish__).`, parentName);
      }
      const name = entry.name ?? entry.agent.name;
      if (!isValidToolName(name)) {
        throw agentError(`${where}: name must match ^[a-zA-Z0-9_-]{1,64}$.`, parentName);
      }
      if (seen.has(name)) throw agentError(`${where}: the name "${name}" is used twice; give one entry a distinct name.`, parentName);
      seen.add(name);
      const description = entry.description ?? entry.agent.description;
      return Object.freeze({
        agent: entry.agent,
        mode: entry.mode,
        name,
        agentType: entry.agent.name,
        ...(description === undefined ? {} : { description }),
      });
    }),
  );
}

function agentError(message: string, agentName: string): ConfigurationError {
  return new ConfigurationError('INVALID_AGENT_CONFIG', message, { agentName });
}
