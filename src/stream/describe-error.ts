/**
 * A log-safe description of an error: its name and `code` (e.g. `error(57P01)`, `Error(ECONNRESET)`), never
 * its message, which may quote SQL parameters or payloads.
 *
 * @example
 * logger.warn('stream flush failed', { streamId, error: describeError(error) });
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${error.name}(${code})` : error.name;
  }
  return typeof error;
}
