import { EMPTY_USAGE_SUMMARY, type UsageRecord, type UsageSummary } from '../types/usage.js';

/**
 * Sum usage records into a summary (LLM tokens and calls; tool calls, failures and durations).
 *
 * @example
 * summarizeUsage(records).totalTokens
 */
export function summarizeUsage(records: Iterable<UsageRecord>): UsageSummary {
  const summary: UsageSummary = { ...EMPTY_USAGE_SUMMARY };
  for (const record of records) {
    if (record.kind === 'llm') {
      summary.llmCalls += 1;
      summary.inputTokens += record.inputTokens ?? 0;
      summary.outputTokens += record.outputTokens ?? 0;
      summary.totalTokens += record.totalTokens ?? 0;
    } else if (record.kind === 'tool') {
      summary.toolCalls += 1;
      if (!record.success) summary.toolFailures += 1;
      summary.toolDurationMs += record.durationMs ?? 0;
    }
  }
  return summary;
}
