export { HookManager, type HookEvent, type HookManagerOptions } from './hook-manager.js';
export { HookManagerRegistry } from './hook-manager-registry.js';
export { mergeHookManagers } from './merge-hook-managers.js';
export { consoleLogger, noopLogger } from './logger.js';
export type {
  AfterLLMCallEvent,
  AfterToolEvent,
  AgentCompleteEvent,
  AgentFailEvent,
  AgentHooks,
  AgentResumedEvent,
  AgentStartEvent,
  AgentSuspendedEvent,
  BeforeLLMCallEvent,
  BeforeToolEvent,
  HookEventBase,
  HookName,
  Logger,
  MessageEvent,
  StateChangeEvent,
} from './types.js';
