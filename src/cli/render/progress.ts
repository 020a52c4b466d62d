const BAR_WIDTH = 24;

/**
 * One progress line: a bar of `width` cells, `done/total` and a label (the item just handled).
 *
 * @example
 * progressLine(3, 4, 'abort s3', 8); // '[######--] 3/4 abort s3'
 */
export function progressLine(done: number, total: number, label: string, width = BAR_WIDTH): string {
  const shownTotal = Math.max(total, done);
  const filled = shownTotal === 0 ? width : Math.min(width, Math.floor((done / shownTotal) * width));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${shownTotal}${label === '' ? '' : ` ${label}`}`;
}

/**
 * Where a progress bar draws: a terminal (redrawn in place) or a log (one line per update).
 *
 * @example
 * const sink: ProgressSink = { write: (text) => process.stderr.write(text), interactive: process.stderr.isTTY === true };
 */
export interface ProgressSink {
  write(text: string): void;
  interactive: boolean;
}

/**
 * The progress bar of a bulk operation (prune, answers or run control over several sessions), on stderr so stdout
 * stays the result. Disabled: draws nothing.
 *
 * @example
 * const bar = new ProgressBar(sink, ids.length, true);
 * for (const id of ids) { await abort(id); bar.tick(`abort ${id}`); }
 * bar.finish();
 */
export class ProgressBar {
  private done = 0;
  private drawn = false;

  constructor(
    private readonly sink: ProgressSink,
    private total: number,
    private readonly enabled: boolean,
  ) {}

  /**
   * Count `count` more items done and redraw.
   *
   * @example
   * bar.tick('approve s1/c1');
   */
  tick(label: string, count = 1): void {
    this.done += count;
    this.draw(label);
  }

  /**
   * Raise the expected total (a prune finds sessions that finished meanwhile).
   *
   * @example
   * bar.grow(120);
   */
  grow(total: number): void {
    this.total = Math.max(this.total, total);
  }

  /**
   * End the bar's line.
   *
   * @example
   * bar.finish();
   */
  finish(): void {
    if (this.enabled && this.drawn && this.sink.interactive) this.sink.write('\n');
  }

  private draw(label: string): void {
    if (!this.enabled) return;
    this.drawn = true;
    const line = progressLine(this.done, this.total, label);
    this.sink.write(this.sink.interactive ? `\r${line}\u001b[K` : `${line}\n`);
  }
}
