import type { z } from 'zod';

const MAX_ISSUES = 5;

/**
 * Describe zod validation issues for a model or a developer: `path: message` pairs, at most five. Zod's
 * messages name expected types and allowed values, never the received value.
 *
 * @example
 * formatSchemaIssues(result.error.issues); // 'city: Invalid input: expected string, received number'
 */
export function formatSchemaIssues(issues: readonly z.core.$ZodIssue[]): string {
  const described = issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? '(root)' : path}: ${issue.message}`;
  });
  const more = issues.length > MAX_ISSUES ? `; and ${issues.length - MAX_ISSUES} more` : '';
  return `${described.join('; ')}${more}`;
}
