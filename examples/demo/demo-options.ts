import { randomBytes } from 'node:crypto';

/**
 * What the demo was asked to do, from its command line and environment.
 *
 * @example
 * const options: DemoOptions = { sessionId: 'trip-1', slowToolMs: 1000, help: false };
 */
export interface DemoOptions {
  /** `--session <id>`: the session to run, or to recover after a crash. Default: a new `trip-…` id. */
  sessionId: string;
  /** `--slow-tool-ms <n>` or `DEMO_SLOW_TOOL_MS`: how long `draft_itinerary` works. Default 1000. */
  slowToolMs: number;
  /** `--help` or `-h`. */
  help: boolean;
}

/** Default duration of the slow tool: long enough to see, short enough for a quick demo. */
const DEFAULT_SLOW_TOOL_MS = 1_000;

/**
 * Usage text of `npm start`.
 *
 * @example
 * console.log(DEMO_USAGE);
 */
export const DEMO_USAGE = `Usage: npm start -- [--session <id>] [--slow-tool-ms <n>]

  --session <id>       run (or, after a crash, recover) this session; default: a new session
  --slow-tool-ms <n>   how long the draft_itinerary tool works (env DEMO_SLOW_TOOL_MS); default ${DEFAULT_SLOW_TOOL_MS}

Environment: OPENAI_API_KEY (+ OPENAI_MODEL, default gpt-4o-mini) uses OpenAI instead of the scripted model;
DATABASE_URL uses that Postgres instead of the embedded one in .pgdata/demo/.

Crash drill: DEMO_SLOW_TOOL_MS=15000 npm start, kill -9 the printed pid while draft_itinerary works,
then npm start -- --session <the printed id>: DBOS recovers the run without repeating finished tools.`;

/**
 * Parse `process.argv.slice(2)` and the environment.
 *
 * @throws Error for an unknown flag, a missing value or a slow-tool duration that is not an integer >= 0.
 * @example
 * parseDemoOptions(['--session', 'trip-1'], {}); // { sessionId: 'trip-1', slowToolMs: 1000, help: false }
 */
export function parseDemoOptions(argv: readonly string[], env: NodeJS.ProcessEnv): DemoOptions {
  let sessionId: string | undefined;
  let slowToolText = env.DEMO_SLOW_TOOL_MS;
  let help = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    const [flag, inlineValue] = argument.includes('=') ? (argument.split(/=(.*)/s, 2) as [string, string]) : [argument, undefined];
    const value = (): string => {
      const next = inlineValue ?? argv[++index];
      if (next === undefined || next.length === 0) throw new Error(`${flag} needs a value.\n\n${DEMO_USAGE}`);
      return next;
    };
    if (flag === '--session') sessionId = value();
    else if (flag === '--slow-tool-ms') slowToolText = value();
    else if (flag === '--help' || flag === '-h') help = true;
    else throw new Error(`Unknown option "${flag}".\n\n${DEMO_USAGE}`);
  }
  const slowToolMs = slowToolText === undefined || slowToolText === '' ? DEFAULT_SLOW_TOOL_MS : Number(slowToolText);
  if (!Number.isInteger(slowToolMs) || slowToolMs < 0) throw new Error('The slow tool duration must be an integer number of milliseconds >= 0.');
  return { sessionId: sessionId ?? `trip-${randomBytes(3).toString('hex')}`, slowToolMs, help };
}
