import { describe, expect, it } from 'vitest';
import { parseSseBlock, readSseEvents } from '../../../src/remote/sse-events.js';

function bodyOf(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

describe('parseSseBlock', () => {
  it.each([
    ['id and data', 'id: 7\ndata: {"a":1}', { id: '7', data: '{"a":1}' }],
    ['multi-line data', 'data: a\ndata: b', { data: 'a\nb' }],
    ['CRLF lines', 'id: 3\r\ndata: x', { id: '3', data: 'x' }],
    ['no space after the colon', 'id:9\ndata:y', { id: '9', data: 'y' }],
    ['a comment only', ': keep-alive', undefined],
    ['no data', 'id: 4', undefined],
  ])('%s', (_label, block, expected) => {
    expect(parseSseBlock(block)).toEqual(expected);
  });
});

describe('readSseEvents', () => {
  it('yields complete events split across reads and drops a partial last one', async () => {
    const events = [];
    for await (const event of readSseEvents(bodyOf(['id: 1\nda', 'ta: {"n":1}\n\n: keep-alive\n\nid: 2\ndata: {"n":2}\n\nid: 3\ndata: {"n"']))) events.push(event);
    expect(events).toEqual([
      { id: '1', data: '{"n":1}' },
      { id: '2', data: '{"n":2}' },
    ]);
  });
});
