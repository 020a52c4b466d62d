import { openBenchDatabase } from './bench-database.js';
import { openHelixSystem } from './side-by-side/helix-system.js';
import { openNaiveDbosSystem } from './side-by-side/naive-dbos-system.js';

const which = process.argv[2] ?? 'helix';
const database = await openBenchDatabase();
const sibling = await database.createSibling();
const system = which === 'helix' ? await openHelixSystem(sibling.url, { growingState: false }) : await openNaiveDbosSystem(sibling.url);
const marks: number[] = [];
const clock = { onModelCall: async () => void marks.push(performance.now()) } as never;
await system.runSession('warm', 20, clock);
marks.length = 0;
const started = performance.now();
await system.runSession('s1', 100, clock);
const total = performance.now() - started;
const gaps = marks.slice(1).map((t, i) => t - marks[i]!);
gaps.sort((a, b) => a - b);
const tr = ((globalThis as any).__trace ?? []).slice(-60) as [string, number, number, number, number][];
for (let i = 1; i < tr.length; i++) { const [n, a, b, c, d] = tr[i]!; const prev = tr[i - 1]!; console.log(n.padEnd(16), 'gapBefore', (a - prev[4]).toFixed(2), 'read', (b - a).toFixed(2), 'body', (c - b).toFixed(2), 'record', (d - c).toFixed(2)); }
console.log(which, 'ms/step median', gaps[Math.floor(gaps.length / 2)]!.toFixed(2), 'p90', gaps[Math.floor(gaps.length * 0.9)]!.toFixed(2), 'total', total.toFixed(0));
await system.close();
await database.close?.();
process.exit(0);
