import type { z } from 'zod';

const MAX_ISSUES = 5;
/** Longest path segment and issue message shown (a key sent by the model can be any size). */
const MAX_PART = 64;
const MAX_MESSAGE = 200;
/** Cap on the whole description. */
const MAX_TEXT = 1_000;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A message that never names what the model sent: unknown keys are counted, not listed. */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `${issue.keys.length} unrecognized key${issue.keys.length === 1 ? '' : 's'}`;
  return clip(issue.message, MAX_MESSAGE);
}

/**
 * Describe zod validation issues for a model or a developer: `path: message` pairs, at most five, at most 1,000
 * characters in all. Zod's messages name expected types and allowed values, never the received value; unknown keys
 * are counted, never echoed, and path segments are clipped.
 *
 * @example
 * formatSchemaIssues(result.error.issues); // 'city: Invalid input: expected string, received number'
 */
export function formatSchemaIssues(issues: readonly z.core.$ZodIssue[]): string {
  const described = issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map((segment) => clip(String(segment), MAX_PART)).join('.');
    return `${path === '' ? '(root)' : path}: ${messageOf(issue)}`;
  });
  const more = issues.length > MAX_ISSUES ? `; and ${issues.length - MAX_ISSUES} more` : '';
  return clip(`${described.join('; ')}${more}`, MAX_TEXT);
}

/** A path as `$.items[0].name`: numbers as indexes, keys clipped (a key the model sent can be any size). */
function jsonPath(path: readonly PropertyKey[]): string {
  return `$${path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${clip(String(segment), MAX_PART)}`)).join('')}`;
}

/**
 * Where zod validation failed, with no values and no messages: each issue's path and code, at most five, e.g.
 * `$.answer (invalid_type), $.items[0] (too_small)`. For texts that are stored or streamed (a run's error) as well
 * as for the model.
 *
 * @example
 * describeIssueLocations(result.error.issues); // '$.answer (invalid_type)'
 */
export function describeIssueLocations(issues: readonly z.core.$ZodIssue[]): string {
  const described = issues.slice(0, MAX_ISSUES).map((issue) => `${jsonPath(issue.path)} (${issue.code})`);
  const more = issues.length > MAX_ISSUES ? ` and ${issues.length - MAX_ISSUES} more` : '';
  return clip(`${described.join(', ')}${more}`, MAX_TEXT);
}
