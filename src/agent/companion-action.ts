/**
 * The companion actions, in injection order. `waitForResult` is injected only when a blocking persistent
 * agent is configured.
 *
 * @example
 * COMPANION_ACTIONS.map((action) => `companion__${action}`);
 */
export const COMPANION_ACTIONS = Object.freeze([
  'spawnAgent',
  'sendMessage',
  'listChildren',
  'getChildStatus',
  'terminateChild',
  'waitForResult',
] as const);

/**
 * One companion action (`companion__${action}` is the tool name).
 *
 * @example
 * const action: CompanionAction = 'getChildStatus';
 */
export type CompanionAction = (typeof COMPANION_ACTIONS)[number];
