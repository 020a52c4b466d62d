/**
 * True when `status` means the stream takes no more writes (`ended` or `failed`).
 *
 * @example
 * if (isTerminalStatus(info.status)) await streams.reactivateStream(id);
 */
export function isTerminalStatus(status: string | null | undefined): boolean {
  return status === 'ended' || status === 'failed';
}
