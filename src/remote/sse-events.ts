/**
 * One server-sent event: its `id` (the chunk sequence of an agent server) and its `data` text.
 *
 * @example
 * const event: SseEvent = { id: '42', data: '{"type":"text_delta"}' };
 */
export interface SseEvent {
  id?: string;
  data: string;
}

/**
 * Parse one SSE block (the lines between two blank lines). Comments (`: keep-alive`) and blocks without
 * `data:` give `undefined`.
 *
 * @example
 * parseSseBlock('id: 7\ndata: {"type":"output"}'); // { id: '7', data: '{"type":"output"}' }
 */
export function parseSseBlock(block: string): SseEvent | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { ...(id === undefined ? {} : { id }), data: data.join('\n') };
}

/**
 * The events of an SSE body, in order, as they arrive. A partial last block (the connection dropped mid-event)
 * is discarded: its event is sent again by a reader that resumes after the last complete one.
 *
 * @example
 * for await (const event of readSseEvents(response.body)) console.log(event.id);
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      pending += decoder.decode(value, { stream: true });
      const blocks = pending.split(/\r?\n\r?\n/);
      pending = blocks.pop() ?? '';
      for (const block of blocks) {
        const event = parseSseBlock(block);
        if (event !== undefined) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
