// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/** Modules that must never be imported at runtime by pure orchestration code. */
const IMPURE_MODULES = ['@dbos-inc/*', 'pg', 'knex', 'ioredis', 'node:*', 'ai', '@ai-sdk/*'];

/** Messages between workflows go through the typed channels of src/channels/ (one topic, payload and key each). */
const NO_RAW_DBOS_SEND = {
  object: 'DBOS',
  property: 'send',
  message: 'Send workflow messages through a typed channel of src/channels/, never DBOS.send directly.',
};

export default tseslint.config(
  // test/fixtures/lint/ holds deliberate violations that test/unit/repo/lint-rules.test.ts lints on purpose.
  // console/ is the web UI (React, DOM, bundler resolution): typechecked by its own console/tsconfig.json in `npm run
  // typecheck`; this Node-side config (NodeNext resolution, import zones of src/) does not apply to it.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.pgdata/**', '.test-services/**', 'test/fixtures/lint/**', 'console/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    // Resolve the `.js` specifiers of our ESM sources to their `.ts` files, so path rules see real targets; without
    // `import-x/extensions` and the parser for `.ts`, no-cycle parses no dependency and silently reports nothing.
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      'import-x/no-cycle': 'error',
      // The layers of DESIGN.md: imports point down only.
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src/steps', from: ['./src/workflows', './src/executor'], message: 'steps/ never import workflows/ or executor/.' },
            { target: './src/workflows', from: ['./src/executor'], message: 'workflows/ never import executor/.' },
            {
              target: './src/journal',
              from: ['./src/steps', './src/workflows', './src/executor', './src/channels', './src/server'],
              message: 'journal/ sits below steps/: it records steps, it never imports the runtime.',
            },
            {
              target: './src/channels',
              from: [
                ...['./src/steps', './src/workflows', './src/executor', './src/server', './src/agent', './src/store', './src/stream'],
                ...['./src/usage', './src/llm', './src/remote', './src/database', './src/state', './src/hooks', './src/skills', './src/testing'],
              ],
              message: 'channels/ sits below steps/, workflows/, executor/: it imports only orchestration/, types/, errors/, the DBOS SDK.',
            },
            {
              target: './src/remote',
              from: ['./src/server', './src/store', './src/stream', './src/usage', './src/llm'],
              message: 'remote/ (transport + remote tool) talks HTTP only: no server, store, stream or model internals.',
            },
            {
              target: './src/orchestration',
              from: ['./src/steps', './src/workflows', './src/executor', './src/channels', './src/store', './src/stream', './src/usage', './src/llm'],
              message: 'orchestration/ is pure: it imports only agent/, types/, errors/ and itself.',
            },
            {
              target: ['./src/stream', './src/usage'],
              from: './src/store',
              except: ['./index.ts'],
              message: 'stream/ and usage/ use the store only through its public index (shared SQL and JSON helpers live in src/database/).',
            },
            {
              target: './src/cli',
              from: './src',
              except: ['./cli', './index.ts', './server/index.ts'],
              message: 'src/cli/ is an entry point over the public API: it imports src/index.ts, src/server/index.ts and its own files only.',
            },
            {
              target: ['./src/store', './src/stream', './src/usage', './src/llm', './src/agent', './src/state', './src/hooks', './src/types', './src/errors', './src/database', './src/remote', './src/limits', './src/fleet', './src/telemetry'],
              from: ['./src/steps', './src/workflows', './src/executor', './src/channels'],
              message: 'Lower layers never import the runtime (steps/, workflows/, executor/, channels/).',
            },
          ],
        },
      ],
    },
  },
  {
    // DBOS internals only in the fused journal, which only journal.ts loads (a dynamic import that may fail: a DBOS
    // without those internals still loads the package and runs the public journal). Type imports are erased.
    // Before the orchestration and server blocks: their options for this rule replace these for their files.
    files: ['src/**/*.ts'],
    ignores: ['src/journal/fused/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@dbos-inc/dbos-sdk/internal/*'], message: 'DBOS internals only in src/journal/fused/ (the fused journal).' },
            { group: ['**/journal/fused/*'], allowTypeImports: true, message: 'src/journal/fused/ is loaded lazily by src/journal/journal.ts only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/orchestration/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: IMPURE_MODULES, allowTypeImports: true, message: 'orchestration/ is pure: no I/O or runtime SDK imports.' }] },
      ],
    },
  },
  {
    // One statement a line, and code lines of at most 160 characters (comments and string literals aside), in the
    // sources: no file is kept under its 300 lines by packing statements or arguments onto long lines.
    files: ['src/**/*.ts'],
    rules: {
      'max-statements-per-line': ['error', { max: 1 }],
      'max-len': ['error', { code: 160, ignoreComments: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // Raw DBOS.send only inside src/channels/ (the workflows/ block below repeats this restriction: a later block's
    // options for the same rule replace, not extend, this one's).
    files: ['src/**/*.ts'],
    ignores: ['src/channels/**'],
    rules: {
      'no-restricted-properties': ['error', NO_RAW_DBOS_SEND],
    },
  },
  {
    // Workflow bodies and pure decisions are replayed: time, randomness and environment come from steps
    // or DBOS.now()/DBOS.randomUUID().
    files: ['src/workflows/**/*.ts', 'src/orchestration/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Nondeterministic in a workflow: use DBOS.now() or a step.' },
        { object: 'Math', property: 'random', message: 'Nondeterministic in a workflow: use DBOS.randomUUID() or a step.' },
        { object: 'process', property: 'env', message: 'Read configuration outside the workflow and pass it in.' },
        { object: 'performance', property: 'now', message: 'Nondeterministic in a workflow: use DBOS.now() or a step.' },
        NO_RAW_DBOS_SEND,
      ],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date']", message: 'Nondeterministic in a workflow: use DBOS.now() or a step.' }],
    },
  },
  {
    // The agent server uses the public executor API only: no steps, workflows, DBOS or storage internals.
    files: ['src/server/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/steps/*', '**/workflows/*', '**/executor/run-*', '**/executor/lost-start*', '**/executor/session-rewind*', '**/store/postgres/*', '**/stream/postgres/*', '**/stream/redis/*', '@dbos-inc/*', 'pg', 'knex', 'ioredis'],
              message: 'src/server/ uses the public executor API only.',
            },
          ],
        },
      ],
    },
  },
  {
    // The operator CLI (src/cli/) reaches the database only through the public stores and DBOS only through its public
    // API (the path zone above keeps it off src/ internals). Repeats the DBOS-internals rule this block's options replace.
    files: ['src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@dbos-inc/dbos-sdk/*', 'pg', 'knex', 'ioredis', '**/journal/fused/*'], message: 'src/cli/ uses the public API only.' }] },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
