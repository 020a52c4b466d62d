/**
 * The persistent-session workflows running in this process (by workflow id): added when a generation's body takes
 * its inbox, removed when the body ends (also by a throw). Process-local and not durable — `executor.close()` asks
 * these to end with `shutdown`; a workflow recovered later registers again in the process that runs it.
 *
 * @example
 * localPersistentWorkflows.add('chat__s1__persistent');
 * console.log(localPersistentWorkflows.has('chat__s1__persistent')); // true
 */
export const localPersistentWorkflows: Set<string> = new Set<string>();
