import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Every name exported from the package entry points, with whether its declaration has TSDoc and an @example. */
function documentedExports(entry: string): Array<{ name: string; hasDoc: boolean; hasExample: boolean }> {
  const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (source === undefined) throw new Error(`cannot read ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`${entry} has no exports`);
  return checker.getExportsOfModule(moduleSymbol).map((exported) => {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const docs = (symbol.declarations ?? []).flatMap((declaration) => ts.getJSDocCommentsAndTags(declaration));
    const text = docs.map((doc) => doc.getText()).join('\n');
    return { name: exported.getName(), hasDoc: docs.length > 0, hasExample: /@example/.test(text) };
  });
}

describe('public API documentation', () => {
  const entries: Array<[string, number]> = [
    ['../../../src/index.ts', 100],
    ['../../../src/testing/index.ts', 10],
    ['../../../src/testing/contracts/index.ts', 6],
    ['../../../src/server/index.ts', 10],
  ];
  for (const [entry, minimumExports] of entries) {
    it(`documents every export of ${entry.replace('../../../', '')} with TSDoc and an @example`, () => {
      const exports = documentedExports(fileURLToPath(new URL(entry, import.meta.url)));
      expect(exports.length).toBeGreaterThanOrEqual(minimumExports);
      const missing = exports.filter((entry) => !entry.hasDoc || !entry.hasExample).map((entry) => entry.name);
      expect(missing).toEqual([]);
    });
  }
});
