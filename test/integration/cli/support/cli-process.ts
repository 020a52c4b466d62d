/**
 * The operator CLI as a child process (`node --import tsx src/cli/main.ts …`), with a clean environment: only the
 * connection variables a test passes reach it (never the runner's DATABASE_URL or HELIX_* variables).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../../src/cli/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CONNECTION_VARIABLES = ['DATABASE_URL', 'DBOS_SYSTEM_DATABASE_URL', 'HELIX_SERVER_URL', 'HELIX_TOKEN', 'HELIX_SCHEMA', 'DBOS__VMID', 'NODE_OPTIONS'];

/** What one CLI run printed and its exit code. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (the run passed --json). */
  json(): any;
}

/** Run the CLI with `args` and `env` added to a clean environment; fails the test after `timeoutMs`. */
export async function runCliProcess(args: readonly string[], env: Record<string, string> = {}, options: { stdin?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONNECTION_VARIABLES) delete environment[name];
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, env: { ...environment, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdin.end(options.stdin ?? '');
  const timeoutMs = options.timeoutMs ?? 60_000;
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`helix-agents ${args.join(' ')} did not exit in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return {
    code,
    stdout,
    stderr,
    json: () => {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`stdout of helix-agents ${args.join(' ')} is not JSON:\n${stdout}\n${stderr}`);
      }
    },
  };
}
