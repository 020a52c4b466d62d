import type { StreamChunk } from '../../src/index.js';

/** Longest JSON shown inline for tool arguments and results. */
const INLINE_JSON_LIMIT = 110;

/**
 * Prints a run's stream to a terminal as it arrives: a header per agent step, text deltas inline,
 * `→ tool(args)` / `✓ tool: result` lines and state patches. With `liveSince`, chunks written before that
 * time (by a process that crashed) are announced as replayed, and the first newer chunk as live.
 *
 * @example
 * const printer = new StreamPrinter((text) => process.stdout.write(text));
 * for await (const chunk of handle.stream()) printer.print(chunk);
 * printer.end();
 */
export class StreamPrinter {
  private step = -1;
  private atLineStart = true;
  private replaying: boolean;

  constructor(
    private readonly write: (text: string) => void,
    private readonly liveSince?: number,
  ) {
    this.replaying = liveSince !== undefined;
  }

  /**
   * Print one chunk.
   *
   * @example
   * printer.print({ type: 'text_delta', delta: 'Hi', agentId: 's1', agentType: 'a', step: 1, timestamp: Date.now(), sequence: 1 });
   */
  print(chunk: StreamChunk): void {
    this.announceReplay(chunk);
    if (chunk.step !== this.step && chunk.step > 0 && chunk.type !== 'output') {
      this.step = chunk.step;
      this.line(`\n[step ${chunk.step}]`);
    }
    switch (chunk.type) {
      case 'text_delta':
        this.text(chunk.delta);
        break;
      case 'tool_start':
        this.line(`  → ${chunk.toolName}(${inline(chunk.arguments)})`);
        break;
      case 'tool_end':
        this.line(chunk.error === undefined ? `  ✓ ${chunk.toolName}: ${inline(chunk.result)}` : `  ✗ ${chunk.toolName}: ${chunk.error}`);
        break;
      case 'state_patch':
        for (const patch of chunk.patches) this.line(`  · state ${patch.op} ${patch.path}${'value' in patch ? ` = ${inline(patch.value)}` : ''}`);
        break;
      case 'step_reset':
        this.line(`  ↻ step ${chunk.step} starts over: partial output of an interrupted attempt is discarded (attempt ${chunk.attempt})`);
        break;
      case 'error':
        this.line(`  ✗ run failed: ${chunk.error}`);
        break;
      case 'run_interrupted':
        this.line(`  ■ run interrupted${chunk.reason === undefined ? '' : `: ${chunk.reason}`}`);
        break;
      case 'output':
        this.line('  ⇒ structured output received');
        break;
      default:
        break;
    }
  }

  /**
   * Finish the last line.
   *
   * @example
   * printer.end();
   */
  end(): void {
    if (!this.atLineStart) this.write('\n');
    this.atLineStart = true;
  }

  private announceReplay(chunk: StreamChunk): void {
    if (this.liveSince === undefined) return;
    if (this.replaying && this.step === -1 && chunk.timestamp < this.liveSince) {
      this.line('[replaying the durable stream: chunks written before the crash]');
      this.step = 0;
    }
    if (this.replaying && chunk.timestamp >= this.liveSince) {
      this.replaying = false;
      this.line('\n[live: this process continues the recovered run]');
    }
  }

  private text(delta: string): void {
    if (this.atLineStart) this.write('  ');
    this.write(delta);
    this.atLineStart = delta.endsWith('\n');
  }

  private line(text: string): void {
    if (!this.atLineStart) this.write('\n');
    this.write(`${text}\n`);
    this.atLineStart = true;
  }
}

function inline(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length <= INLINE_JSON_LIMIT ? text : `${text.slice(0, INLINE_JSON_LIMIT - 1)}…`;
}
