import { collectEffectiveTools, type AgentTool, type AnyAgentConfig } from '../../agent/index.js';
import { clipText } from '../../errors/redact-secrets.js';
import type { ConsoleAgentView, ConsoleAgentsResponse, ConsoleToolView } from './console-api.js';

/** Longest tool or agent description shown. */
const DESCRIPTION_CHARS = 500;
const DELEGATING_KINDS: ReadonlySet<AgentTool['kind']> = new Set(['subagent', 'remote', 'companion']);

/**
 * `GET {path}/api/agents`: the server's agents, sorted by name, each with its effective tools.
 *
 * @example
 * consoleAgents(context.agents, 'assistant'); // { agents: [{ name: 'assistant', chat: true, … }] }
 */
export function consoleAgents(agents: ReadonlyMap<string, AnyAgentConfig>, chatAgentName: string | undefined): ConsoleAgentsResponse {
  const views = [...agents.values()].map((agent) => agentView(agent, agent.name === chatAgentName));
  return { agents: views.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0)) };
}

function agentView(agent: AnyAgentConfig, chat: boolean): ConsoleAgentView {
  const tools = collectEffectiveTools(agent).map(toolView);
  return {
    name: agent.name,
    ...(agent.description === undefined ? {} : { description: clipText(agent.description, DESCRIPTION_CHARS) }),
    maxSteps: agent.maxSteps,
    tools,
    hasApprovalTools: tools.some((tool) => tool.approval !== 'never'),
    hasClientTools: tools.some((tool) => tool.kind === 'client'),
    hasSubAgents: tools.some((tool) => DELEGATING_KINDS.has(tool.kind)),
    hasOutputSchema: agent.outputSchema !== undefined,
    chat,
  };
}

function toolView(tool: AgentTool): ConsoleToolView {
  const delegate = tool.kind === 'subagent' || tool.kind === 'remote' ? { agentType: tool.agentType } : {};
  return { name: tool.name, kind: tool.kind, description: clipText(tool.description, DESCRIPTION_CHARS), approval: approvalOf(tool), ...delegate };
}

function approvalOf(tool: AgentTool): ConsoleToolView['approval'] {
  if (tool.kind !== 'server' || tool.requireApproval === undefined || tool.requireApproval === false) return 'never';
  return tool.requireApproval === true ? 'always' : 'conditional';
}
