/**
 * One column of a table: its header, the widest a cell may be (longer text is cut with `…`), and its alignment.
 *
 * @example
 * const column: TableColumn = { header: 'STEPS', align: 'right' };
 */
export interface TableColumn {
  header: string;
  maxWidth?: number;
  align?: 'left' | 'right';
}

const DEFAULT_MAX_WIDTH = 48;

/**
 * Render rows as a plain-text table for people: a header line, one line per row, columns padded to their widest
 * cell (at most `maxWidth`, default 48), separated by two spaces, no trailing spaces. Line breaks and tabs inside a
 * cell become spaces. No rows: the header and `(none)`.
 *
 * @example
 * renderTable([{ header: 'ID' }, { header: 'STATUS' }], [['s1', 'active']]); // 'ID  STATUS\ns1  active'
 */
export function renderTable(columns: readonly TableColumn[], rows: ReadonlyArray<readonly string[]>): string {
  const cells = rows.map((row) => columns.map((column, index) => fit(row[index] ?? '', column.maxWidth ?? DEFAULT_MAX_WIDTH)));
  const widths = columns.map((column, index) => Math.max(column.header.length, ...cells.map((row) => width(row[index] ?? ''))));
  const line = (values: readonly string[]): string =>
    values
      .map((value, index) => (columns[index]?.align === 'right' ? value.padStart(widths[index] ?? 0) : value.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  const lines = [line(columns.map((column) => column.header)), ...cells.map(line)];
  if (rows.length === 0) lines.push('(none)');
  return lines.join('\n');
}

/**
 * `key: value` lines with the keys aligned, skipping absent values.
 *
 * @example
 * renderFields([['Session', 's1'], ['Error', undefined]]); // 'Session  s1'
 */
export function renderFields(fields: ReadonlyArray<readonly [string, string | undefined]>): string {
  const present = fields.filter((field): field is readonly [string, string] => field[1] !== undefined);
  const keyWidth = Math.max(0, ...present.map(([key]) => key.length));
  return present.map(([key, value]) => `${key.padEnd(keyWidth)}  ${oneLine(value)}`).join('\n');
}

/**
 * A cell's text on one line, cut to `maxWidth` characters with `…`.
 *
 * @example
 * fit('a\nlong text', 6); // 'a lon…'
 */
export function fit(text: string, maxWidth: number): string {
  const single = oneLine(text);
  const characters = [...single];
  return characters.length <= maxWidth ? single : `${characters.slice(0, Math.max(0, maxWidth - 1)).join('')}…`;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}

function width(text: string): number {
  return [...text].length;
}
