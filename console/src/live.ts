/**
 * The running step as it streams in: the session's own text and tool calls per step, from `/sse` chunks. A chunk at
 * or below the last sequence seen is ignored (a reconnect never doubles text); `step_reset` drops its step (a retried
 * model call streams again).
 */
import type { LiveChunk } from './api.js';

export interface LiveStep {
  step: number;
  text: string;
  tools: { toolCallId: string; toolName: string; done: boolean }[];
}

export interface LiveView {
  lastSequence: number;
  steps: LiveStep[];
  /** The last chunk type seen (a terminal one tells the page to reload the session). */
  lastType: string | null;
}

export const EMPTY_LIVE: LiveView = { lastSequence: 0, steps: [], lastType: null };

export function applyChunk(view: LiveView, chunk: LiveChunk, sessionId: string): LiveView {
  if (chunk.sequence <= view.lastSequence) return view;
  const next: LiveView = { ...view, lastSequence: chunk.sequence, lastType: chunk.type };
  if (chunk.agentId !== sessionId) return next;
  if (chunk.type === 'step_reset') return { ...next, steps: view.steps.filter((step) => step.step !== chunk.step) };
  const steps = [...view.steps];
  let index = steps.findIndex((step) => step.step === chunk.step);
  if (index < 0) {
    if (chunk.type !== 'text_delta' && chunk.type !== 'tool_start') return next;
    steps.push({ step: chunk.step, text: '', tools: [] });
    index = steps.length - 1;
  }
  const step = steps[index]!;
  if (chunk.type === 'text_delta') steps[index] = { ...step, text: step.text + (chunk.delta ?? '') };
  else if (chunk.type === 'tool_start') steps[index] = { ...step, tools: [...step.tools, { toolCallId: chunk.toolCallId ?? '', toolName: chunk.toolName ?? '', done: false }] };
  else if (chunk.type === 'tool_end') steps[index] = { ...step, tools: step.tools.map((tool) => (tool.toolCallId === chunk.toolCallId ? { ...tool, done: true } : tool)) };
  return { ...next, steps };
}
