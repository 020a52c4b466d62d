/**
 * Quote a Postgres identifier (double quotes doubled), e.g. a schema name with quotes or capitals.
 *
 * @example
 * quoteIdentifier('My "Schema"'); // '"My ""Schema"""'
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
