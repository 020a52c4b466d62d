import type { SiblingDatabase } from '../bench-database.js';
import { BenchChild } from '../bench-child.js';
import { journalOf } from '../side-by-side/bench-system.js';
import { TURN_PROTOCOL, type TurnCommand, type TurnReply } from './turn-protocol.js';
import type { TurnSystemName } from './turn-system.js';

/**
 * A turn-latency child (turn-child.ts) running one system on its own database, asked one command at a time.
 *
 * @example
 * const langgraph = await TurnProcess.start(sibling, 'langgraph');
 * const reply = await langgraph.ask({ type: 'session', index: 1 }, 'session');
 */
export type TurnProcess = BenchChild<TurnCommand, TurnReply> & { readonly system: TurnSystemName };

/**
 * Start turn-latency children.
 *
 * @example
 * const helix = await TurnProcess.start(sibling, 'helix');
 */
export const TurnProcess = {
  /**
   * Spawn the child for `system` on `database` (ours with its journal as `HELIX_JOURNAL`, so it holds from the
   * child's first import on) and wait until it is set up and warmed up.
   *
   * @throws Error when the child fails first (its stderr tail is in the message).
   */
  async start(database: SiblingDatabase, system: TurnSystemName): Promise<TurnProcess> {
    const journal = journalOf(system);
    const child = await BenchChild.start<TurnCommand, TurnReply>({
      name: `The "${system}" turn-latency child`,
      script: 'bench/turn-latency/turn-child.ts',
      args: [system],
      env: { ...process.env, BENCH_DATABASE_URL: database.url, ...(journal === undefined ? {} : { HELIX_JOURNAL: journal }) },
      protocol: TURN_PROTOCOL,
    });
    return Object.assign(child, { system });
  },
};
