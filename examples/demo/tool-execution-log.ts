import pg from 'pg';

/**
 * How often one tool ran in a session, from the demo's side record.
 *
 * @example
 * const count: ToolExecutionCount = { toolName: 'get_weather', calls: 2, started: 2, finished: 2 };
 */
export interface ToolExecutionCount {
  toolName: string;
  /** Distinct tool calls the model made. */
  calls: number;
  /** Executions that began (a run killed mid-tool leaves one that never finished). */
  started: number;
  finished: number;
}

/**
 * A durable side record of tool executions, kept by the demo's tools in their own table (not the agent
 * runtime's): each execution inserts a row when it starts and stamps it when it finishes, so after a crash
 * and recovery the counts show which tools really ran again.
 *
 * @example
 * const log = new ToolExecutionLog(databaseUrl);
 * await log.migrate();
 * const id = await log.started('trip-1', 'call-1', 'get_weather');
 * await log.finished(id);
 * console.log(await log.counts('trip-1'));
 */
export class ToolExecutionLog {
  private readonly pool: pg.Pool;

  constructor(connectionString: string) {
    this.pool = new pg.Pool({ connectionString, max: 2 });
    this.pool.on('error', () => undefined);
  }

  /**
   * Create the `demo_tool_executions` table if it is missing.
   *
   * @example
   * await log.migrate();
   */
  async migrate(): Promise<void> {
    await this.pool.query(`CREATE TABLE IF NOT EXISTS demo_tool_executions (
      id bigserial PRIMARY KEY,
      session_id text NOT NULL,
      tool_call_id text NOT NULL,
      tool_name text NOT NULL,
      process_id integer NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`);
  }

  /**
   * Record that an execution began; returns its row id.
   *
   * @example
   * const id = await log.started(context.sessionId, context.toolCallId, 'draft_itinerary');
   */
  async started(sessionId: string, toolCallId: string, toolName: string): Promise<string> {
    const result = await this.pool.query<{ id: string }>(
      'INSERT INTO demo_tool_executions (session_id, tool_call_id, tool_name, process_id) VALUES ($1, $2, $3, $4) RETURNING id',
      [sessionId, toolCallId, toolName, process.pid],
    );
    return result.rows[0]?.id ?? '';
  }

  /**
   * Record that an execution finished.
   *
   * @example
   * await log.finished(id);
   */
  async finished(id: string): Promise<void> {
    await this.pool.query('UPDATE demo_tool_executions SET finished_at = now() WHERE id = $1', [id]);
  }

  /**
   * Executions per tool of a session, in order of first use.
   *
   * @example
   * const counts = await log.counts('trip-1'); // [{ toolName: 'get_weather', calls: 2, started: 2, finished: 2 }, …]
   */
  async counts(sessionId: string): Promise<ToolExecutionCount[]> {
    const result = await this.pool.query<{ tool_name: string; calls: string; started: string; finished: string }>(
      `SELECT tool_name, count(DISTINCT tool_call_id) AS calls, count(*) AS started, count(finished_at) AS finished
         FROM demo_tool_executions WHERE session_id = $1
        GROUP BY tool_name ORDER BY min(id)`,
      [sessionId],
    );
    return result.rows.map((row) => ({
      toolName: row.tool_name,
      calls: Number(row.calls),
      started: Number(row.started),
      finished: Number(row.finished),
    }));
  }

  /**
   * Close the connection pool.
   *
   * @example
   * await log.close();
   */
  async close(): Promise<void> {
    await this.pool.end();
  }
}
