// The operator CLI's entry (`npx helix-agents …`, through bin/helix-agents.js): runs the command, then exits with its code.
import { runCli } from './cli.js';

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
  now: Date.now,
});
// Exit once stdout and stderr have taken everything (a pipe may still hold the output).
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
process.exit(code);
