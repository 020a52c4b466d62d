/**
 * Ids every store and stream manager refuses with `INVALID_ARGUMENT`, each built on a good id so an implementation
 * that cut them short would hit (and change) what the good id names: empty, NUL, a control character, a C1 control
 * character, a lone surrogate, and one byte over `maxBytes` (UTF-8).
 *
 * @example
 * for (const [label, bad] of badIds('session-1', 2_048)) await expectCode(store.loadState(bad), 'INVALID_ARGUMENT');
 */
export function badIds(good: string, maxBytes: number): Array<[string, string]> {
  return [
    ['empty', ''],
    ['NUL', `${good}\u0000`],
    ['control character', `${good}\n`],
    ['C1 control character', `${good}\u0085`],
    ['lone surrogate', `${good}\ud800`],
    ['over-long', good + 'x'.repeat(maxBytes + 1 - Buffer.byteLength(good))],
  ];
}
