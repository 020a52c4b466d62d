import { z } from 'zod';

import type { CompanionAction } from './companion-action.js';
import type { ResolvedPersistentAgent } from './persistent-agent.js';
import type { CompanionTool } from './tool-types.js';
import { COMPANION_TOOL_PREFIX, TOOL_NAME_PATTERN } from './tool-names.js';

const childName = () =>
  z.string().regex(TOOL_NAME_PATTERN).describe('Name of the child (letters, digits, "_" and "-"; at most 64 characters).');

/**
 * The tool name of a companion action: `companion__${action}`.
 *
 * @example
 * companionToolName('spawnAgent'); // 'companion__spawnAgent'
 */
export function companionToolName(action: CompanionAction): string {
  return `${COMPANION_TOOL_PREFIX}${action}`;
}

/**
 * The companion tools for a parent's persistent agents: spawnAgent, sendMessage, listChildren,
 * getChildStatus and terminateChild always, plus waitForResult when at least one agent is blocking.
 * Returns an empty list when there are no persistent agents.
 *
 * @example
 * createCompanionTools(agent.persistentAgents).map((tool) => tool.name);
 */
export function createCompanionTools(persistentAgents: readonly ResolvedPersistentAgent[]): readonly CompanionTool[] {
  const [first, ...rest] = persistentAgents.map((entry) => entry.name);
  if (first === undefined) return Object.freeze([]);
  const tools: CompanionTool[] = [
    companionTool(
      'spawnAgent',
      spawnDescription(persistentAgents),
      z.object({
        agentType: z.enum([first, ...rest]).describe('Which persistent agent to start.'),
        message: z.string().min(1).describe('The task or first message for the child.'),
        name: childName()
          .optional()
          .describe('Stable child name to address it later; reusing a completed child\'s name continues it. Default: auto-named.'),
      }),
    ),
    companionTool(
      'sendMessage',
      'Send a follow-up message to a persistent child. It does not interrupt the child: a running child gets it as its next turn, queued until the current turn ends; an idle or completed child starts a new turn with it, keeping its memory; a failed or terminated child is started afresh with it.',
      z.object({ name: childName(), message: z.string().min(1).describe('The message for the child.') }),
    ),
    companionTool('listChildren', 'List your persistent children with their status.', z.object({})),
    companionTool(
      'getChildStatus',
      'Get the status of a persistent child and, when it has finished, its output or error.',
      z.object({ name: childName() }),
    ),
    companionTool(
      'terminateChild',
      'Stop a persistent child permanently.',
      z.object({ name: childName(), reason: z.string().optional().describe('Why the child is stopped.') }),
    ),
  ];
  if (persistentAgents.some((entry) => entry.mode === 'blocking')) {
    tools.push(
      companionTool(
        'waitForResult',
        'Wait until a persistent child\'s newest turn finishes (the turn your latest spawnAgent or sendMessage started, even while it is still queued) and return its output (or its status when timeoutMs passes first).',
        z.object({
          name: childName(),
          timeoutMs: z.number().int().positive().max(86_400_000).optional().describe('Give up waiting after this many milliseconds.'),
        }),
      ),
    );
  }
  return Object.freeze(tools);
}

/**
 * True for a companion tool, given the tool (checks its `_isCompanionTool` marker) or a tool name (checks
 * the `companion__` prefix).
 *
 * @example
 * if (isCompanionTool(tool)) { /* route to the companion dispatcher *\/ }
 */
export function isCompanionTool(toolOrName: unknown): boolean {
  if (typeof toolOrName === 'string') return toolOrName.startsWith(COMPANION_TOOL_PREFIX);
  return typeof toolOrName === 'object' && toolOrName !== null && (toolOrName as { _isCompanionTool?: unknown })._isCompanionTool === true;
}

function companionTool(action: CompanionAction, description: string, parameters: z.ZodType): CompanionTool {
  return Object.freeze({
    kind: 'companion' as const,
    name: companionToolName(action),
    description,
    parameters,
    _isCompanionTool: true as const,
    companionAction: action,
  });
}

function spawnDescription(persistentAgents: readonly ResolvedPersistentAgent[]): string {
  const lines = persistentAgents.map((entry) => {
    const behaviour = entry.mode === 'blocking' ? 'blocking: you get its result' : 'non-blocking: runs in the background';
    return `- ${entry.name} (${behaviour})${entry.description === undefined ? '' : `: ${entry.description}`}`;
  });
  return ['Start a persistent companion agent that keeps its memory across messages. Available agents:', ...lines].join('\n');
}
