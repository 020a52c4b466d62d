import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Every layering and determinism rule of eslint.config.js fires on a deliberate violation: a rule that silently
 * checks nothing (as import-x/no-cycle did on `.ts` before its parser settings) fails here.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
/** Virtual files linted as if they were in src/ (the project service admits them as default-project files). */
const FIXTURE_GLOBS = ['src/*/zz-lint-fixture.ts', 'src/*/*/zz-lint-fixture.ts'];

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    ignore: false,
    overrideConfig: { languageOptions: { parserOptions: { projectService: { allowDefaultProject: FIXTURE_GLOBS, maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 32 }, tsconfigRootDir: root } } },
  });
});

async function rulesFiredOn(folder: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `src/${folder}/zz-lint-fixture.ts` });
  return (result?.messages ?? []).map((message) => message.ruleId ?? `fatal: ${message.message}`);
}

/** A raw `DBOS.send`: allowed only in src/channels/, where the typed channels are declared. */
const RAW_SEND = [
  "import { DBOS } from '@dbos-inc/dbos-sdk';",
  "export const x = (id: string): Promise<void> => DBOS.send(id, { kind: 'wake' }, 'topic');",
  '',
].join('\n');

const cases: Array<[string, string, string, string]> = [
  ['orchestration/ imports no runtime SDK', 'orchestration', "import { DBOS } from '@dbos-inc/dbos-sdk';\nexport const x = DBOS;\n", '@typescript-eslint/no-restricted-imports'],
  ['orchestration/ imports no store', 'orchestration', "import { InMemoryStateStore } from '../store/index.js';\nexport const x = InMemoryStateStore;\n", 'import-x/no-restricted-paths'],
  ['orchestration/ reads no clock', 'orchestration', 'export const x = (): number => Date.now();\n', 'no-restricted-properties'],
  ['workflows/ reads no environment', 'workflows', "export const x = (): string | undefined => process.env['HOME'];\n", 'no-restricted-properties'],
  ['workflows/ makes no Date', 'workflows', 'export const x = (): Date => new Date();\n', 'no-restricted-syntax'],
  ['workflows/ never import executor/', 'workflows', "import { DBOSAgentExecutor } from '../executor/dbos-agent-executor.js';\nexport const x = DBOSAgentExecutor;\n", 'import-x/no-restricted-paths'],
  ['steps/ never import workflows/', 'steps', "import { persistentInboxReceiver } from '../workflows/workflow-messages.js';\nexport const x = persistentInboxReceiver;\n", 'import-x/no-restricted-paths'],
  ['lower layers never import the runtime', 'store', "import { CallLLMStep } from '../steps/call-llm.step.js';\nexport const x = CallLLMStep;\n", 'import-x/no-restricted-paths'],
  ['limits/ never import the runtime', 'limits', "import { CallLLMStep } from '../steps/call-llm.step.js';\nexport const x = CallLLMStep;\n", 'import-x/no-restricted-paths'],
  ['telemetry/ never import the runtime', 'telemetry', "import { emitRunEnded } from '../steps/run-telemetry.js';\nexport const x = emitRunEnded;\n", 'import-x/no-restricted-paths'],
  ['fleet/ never import the runtime', 'fleet', "import { DBOSAgentExecutor } from '../executor/dbos-agent-executor.js';\nexport const x = DBOSAgentExecutor;\n", 'import-x/no-restricted-paths'],
  ['steps/ send no raw DBOS message', 'steps', RAW_SEND, 'no-restricted-properties'],
  ['workflows/ send no raw DBOS message (kept beside the determinism rules)', 'workflows', RAW_SEND, 'no-restricted-properties'],
  ['channels/ never import the runtime', 'channels', "import { CallLLMStep } from '../steps/call-llm.step.js';\nexport const x = CallLLMStep;\n", 'import-x/no-restricted-paths'],
  ['cli/ uses the public API only (src/index.ts, src/server/index.ts)', 'cli', "import { interruptSession } from '../executor/run-control.js';\nexport const x = interruptSession;\n", 'import-x/no-restricted-paths'],
  ['server/ uses the public executor API only', 'server', "import { CallLLMStep } from '../steps/call-llm.step.js';\nexport const x = CallLLMStep;\n", '@typescript-eslint/no-restricted-imports'],
  ['one statement a line (no packing to stay under 300 lines)', 'steps', 'export const x = (): number => {\n  let a = 1; a += 1;\n  return a;\n};\n', 'max-statements-per-line'],
  [
    'code lines of at most 160 characters (no packing arguments onto one line)',
    'steps',
    `export const x = (alpha: number, beta: number, gamma: number): number => ${Array.from({ length: 12 }, (_, i) => `alpha * ${i} + beta * ${i} + gamma`).join(' + ')};\n`,
    'max-len',
  ],
  ['DBOS internals only in the fused journal', 'steps', "import { globalParams } from '@dbos-inc/dbos-sdk/internal/utils';\nexport const x = globalParams;\n", '@typescript-eslint/no-restricted-imports'],
  ['the fused journal is never imported statically', 'steps', "import { fusedJournal } from '../journal/fused/fused-journal.js';\nexport const x = fusedJournal;\n", '@typescript-eslint/no-restricted-imports'],
  ['journal/ never imports the runtime', 'journal', "import { CallLLMStep } from '../steps/call-llm.step.js';\nexport const x = CallLLMStep;\n", 'import-x/no-restricted-paths'],
];

describe('lint rules fire on deliberate violations', () => {
  it.each(cases)('%s', async (_label, folder, code, rule) => {
    expect(await rulesFiredOn(folder, code)).toContain(rule);
  }, 60_000);

  it('a clean fixture passes (the rules are not firing on everything)', async () => {
    expect(await rulesFiredOn('orchestration', "import type { Message } from '../types/message.js';\nexport const count = (messages: Message[]): number => messages.length;\n")).toEqual([]);
  }, 60_000);

  it('channels/ may send raw DBOS messages (the one place that declares them)', async () => {
    expect(await rulesFiredOn('channels', RAW_SEND)).toEqual([]);
  }, 60_000);

  it('the fused journal may use DBOS internals, and a type import of it is allowed elsewhere', async () => {
    const internals = "import { globalParams } from '@dbos-inc/dbos-sdk/internal/utils';\nexport const x = globalParams;\n";
    expect(await rulesFiredOn('journal/fused', internals)).toEqual([]);
    const typeOnly = "import type { SystemDatabase } from '../journal/fused/record-row.js';\nexport type X = SystemDatabase;\n";
    expect(await rulesFiredOn('steps', typeOnly)).toEqual([]);
  }, 60_000);

  it('import-x/no-cycle reports a two-file cycle on .ts sources', async () => {
    const results = await eslint.lintFiles(['test/fixtures/lint/cycle-a.ts', 'test/fixtures/lint/cycle-b.ts']);
    for (const result of results) expect(result.messages.map((message) => message.ruleId)).toContain('import-x/no-cycle');
  }, 60_000);
});
