import pg from 'pg';
import { formatTable } from '../../examples/demo/format-table.js';

/** Clients whose statements are never traced (the benchmark's own probe). */
const untraced = new WeakSet<object>();

/** Characters of a statement's text kept as its key (whitespace collapsed). */
const KEY_LENGTH = 110;

/**
 * Leave `client`'s statements out of every statement trace (the probe's own reads).
 *
 * @example
 * markUntraced(probeClient);
 */
export function markUntraced(client: object): void {
  untraced.add(client);
}

/**
 * Every statement node-postgres sends in this process while tracing is on, keyed by its text: how many and
 * how long from issue to answer (client side; statements sent ahead in pipeline mode overlap, so their times
 * add up to more than the wall time).
 *
 * @example
 * const trace = installStatementTrace();
 * trace.setTracing(true);
 * await runSession();
 * trace.setTracing(false);
 * process.stdout.write(trace.format(200));
 */
export interface StatementTrace {
  /** Turn counting on (a measured session) or off. */
  setTracing(on: boolean): void;
  /** One row per statement text: count and ms per agent step over `steps` traced steps, heaviest first. */
  format(steps: number): string;
}

type QueryArguments = [unknown, ...unknown[]];

/**
 * Wrap `pg.Client.prototype.query` (every pool and client of this process, DBOS's included) to count and time
 * statements while tracing is on. Install once per process, before the measured sessions.
 *
 * @example
 * const trace = installStatementTrace();
 */
export function installStatementTrace(): StatementTrace {
  const totals = new Map<string, { count: number; ms: number }>();
  let tracing = false;
  const record = (text: string, ms: number): void => {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, KEY_LENGTH);
    const total = totals.get(key) ?? { count: 0, ms: 0 };
    total.count += 1;
    total.ms += ms;
    totals.set(key, total);
  };
  const original = Reflect.get(pg.Client.prototype, 'query') as (this: pg.Client, ...args: QueryArguments) => unknown;
  const traced = function (this: pg.Client, ...args: QueryArguments): unknown {
    const config = args[0] as { text?: unknown } | string;
    const text = typeof config === 'string' ? config : config.text;
    if (!tracing || untraced.has(this) || typeof text !== 'string') return original.apply(this, args);
    const startedAt = performance.now();
    const done = (): void => record(text, performance.now() - startedAt);
    const callback = args.at(-1);
    if (args.length > 1 && typeof callback === 'function') {
      args[args.length - 1] = (...results: unknown[]): unknown => {
        done();
        return (callback as (...values: unknown[]) => unknown)(...results);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) void result.then(done, done);
    else done();
    return result;
  };
  Reflect.set(pg.Client.prototype, 'query', traced);
  return {
    setTracing: (on) => {
      tracing = on;
    },
    format: (steps) => {
      const rows = [...totals.entries()].sort(([, left], [, right]) => right.ms - left.ms);
      const all = rows.reduce((sum, [, total]) => ({ count: sum.count + total.count, ms: sum.ms + total.ms }), { count: 0, ms: 0 });
      const cells = (key: string, total: { count: number; ms: number }): string[] => [
        (total.count / steps).toFixed(2),
        (total.ms / steps).toFixed(2),
        total.count === 0 ? '-' : (total.ms / total.count).toFixed(2),
        key,
      ];
      return formatTable(
        ['per step', 'ms/step', 'ms each', 'statement (issue to answer, client side)'],
        [...rows.map(([key, total]) => cells(key, total)), cells('all statements', all)],
      );
    },
  };
}
