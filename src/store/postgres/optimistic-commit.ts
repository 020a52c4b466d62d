import { InternalError } from '../../errors/index.js';
import type { CommittedSession } from './commit-cache.js';
import type { SqlConnection } from './database.js';
import { guardsHold, type DeferringConnection } from './statement-batch.js';

/**
 * The connection of an optimistic step commit outside any transaction (`saveStateAndPromoteStaging` of a session this
 * process committed last): the commit reads nothing, and its writes run at once as ONE autocommit statement whose
 * guards (`WriteBatch.guard`: the session row's `xmin` unchanged, nothing staged) fail it as a whole (SQLSTATE 22012)
 * when anyone wrote the session since. The statement also reads its transaction's id, which the next commit's guard
 * expects as the row's `xmin`.
 *
 * @example
 * const guarding = new GuardingConnection(connection);
 * const result = await commitPostgresStepOn(guarding, tables, 's1', write, messages, meta, {}, cache, known);
 * result.onCommitted?.({ transactionId: guarding.transactionId });
 */
export class GuardingConnection implements DeferringConnection {
  readonly enforcesGuards = true;
  /** The id of the transaction that ran the writes, once they ran. */
  transactionId: string | undefined;

  constructor(private readonly connection: SqlConnection) {}

  query(): never {
    throw new InternalError('An optimistic step commit reads nothing; its writes go through deferWrites.');
  }

  async deferWrites(statements: string[], values: unknown[], options: { guards?: readonly number[] } = {}): Promise<void> {
    const ctes = statements.map((text, index) => `w${index} AS (${text})`);
    const text = `WITH ${ctes.join(', ')} SELECT ${guardsHold(options.guards ?? [], 'w')} AS held, pg_current_xact_id()::xid::text AS xid`;
    const { rows } = await this.connection.query<{ xid: string }>(text, values);
    this.transactionId = rows[0]?.xid;
  }
}

/**
 * Whether an optimistic commit of step `checkpointId` may be tried from `known` (what this process's last commit of
 * the session left): not when that commit was this very step (a re-run of a step whose commit is durable must find
 * its checkpoint), nor when the caller expects another version.
 *
 * @example
 * if (known !== undefined && mayCommitOptimistically(known, meta.checkpointId, options.expectedVersion)) { … }
 */
export function mayCommitOptimistically(known: CommittedSession, checkpointId: string, expectedVersion: number | undefined): boolean {
  return known.state.checkpointId !== checkpointId && (expectedVersion === undefined || expectedVersion === known.state.version);
}

/**
 * Whether an optimistic commit failed because what it assumed no longer holds (a guard: the session was written
 * since, SQLSTATE 22012) or its rows exist already (23505, 23P01): the commit then runs again, reading first.
 *
 * @example
 * if (!refusedOptimisticCommit(error)) throw error;
 */
export function refusedOptimisticCommit(error: unknown): boolean {
  // The store reports the driver's error as a StoreError naming its SQLSTATE.
  const failure = error as { code?: unknown; data?: { sqlState?: unknown }; cause?: { code?: unknown } } | null;
  const code = failure?.data?.sqlState ?? failure?.cause?.code ?? failure?.code;
  return code === '22012' || code === '23505' || code === '23P01';
}
