/**
 * Format rows as a compact, left-aligned text table with a header rule (numbers right-aligned).
 *
 * @example
 * formatTable(['tool', 'runs'], [['get_weather', 2]]);
 * // tool         runs
 * // -----------  ----
 * // get_weather     2
 */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = rows.map((row) => headers.map((_, column) => String(row[column] ?? '')));
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number'));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => row[column]?.length ?? 0)));
  const render = (row: readonly string[]): string =>
    row
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(headers), render(widths.map((width) => '-'.repeat(width))), ...cells.map(render)].join('\n');
}
