import { describe, expect, it } from 'vitest';
import { newRunId } from '../../../src/executor/run-id.js';

describe('newRunId', () => {
  it('is run- and 13 base-62 digits: 17 characters, none of the separators ids built from it use', () => {
    for (let index = 0; index < 200; index += 1) expect(newRunId()).toMatch(/^run-[0-9A-Za-z]{13}$/);
  });

  it('draws 72 random bits: no repeats, and every digit position varies', () => {
    const ids = Array.from({ length: 2_000 }, () => newRunId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const position of [5, 10, 16]) expect(new Set(ids.map((id) => id[position])).size).toBeGreaterThan(30);
    // The leading digit carries the top bits: 2^72 / 62^12 ≈ 1.46, so it is 0 or 1, and not always 0.
    const leading = new Set(ids.map((id) => id[4]));
    expect([...leading].every((digit) => '01'.includes(digit ?? ''))).toBe(true);
    expect(leading.size).toBe(2);
  });
});
