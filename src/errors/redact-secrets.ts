/** What a redacted token is replaced with. */
const REDACTED = '[redacted]';

/**
 * Secret-looking tokens, most specific first. Each pattern replaces the whole match, except `KEY_VALUE`, which keeps
 * the key's name and hides its value.
 */
const TOKEN_PATTERNS: readonly RegExp[] = [
  // Authorization header values: `Bearer abc…`, `Basic abc…`.
  /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi,
  // Provider keys: OpenAI / Anthropic / Stripe style `sk-…`, `pk_live_…`, `rk_…`.
  /\b(?:sk|pk|rk)[-_][A-Za-z0-9_-]{6,}/g,
  // JSON Web Tokens.
  /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
  // AWS access key ids, Google API keys, GitHub and Slack tokens.
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{8,}/g,
  // Long hex (32+), or base64-like runs of 24+ mixing digits, lower and upper case: hashes, keys, session tokens.
  /\b[0-9a-fA-F]{32,}\b/g,
  /(?<![A-Za-z0-9+/_-])(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[A-Z])[A-Za-z0-9+/_-]{24,}={0,2}/g,
];

/** `api_key=…`, `"token": "…"`, `password: …`: the value after a secret-sounding key. */
const KEY_VALUE = /\b((?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd|authorization|x-api-key)["']?\s*[:=]\s*["']?)[^\s"',;}&]+/gi;

/**
 * Replace secret-looking tokens in a text with `[redacted]`: `Bearer …`, `sk-…` style keys, JWTs, AWS / Google /
 * GitHub / Slack keys, long hex or base64-like runs, and the value of `api_key=…`, `token: …`, `password=…`.
 * Defensive only: a text that must not leak is never rendered in the first place (see `safeErrorOf`).
 *
 * @example
 * redactSecrets('401: invalid key sk-live-abc123def456'); // '401: invalid key [redacted]'
 */
export function redactSecrets(text: string): string {
  let redacted = text;
  for (const pattern of TOKEN_PATTERNS) redacted = redacted.replace(pattern, REDACTED);
  return redacted.replace(KEY_VALUE, (_match, key: string) => `${key}${REDACTED}`);
}

/**
 * Cut a text to at most `max` characters (the last one an ellipsis when it was cut), never splitting a surrogate
 * pair.
 *
 * @example
 * clipText('abcdef', 4); // 'abc…'
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
