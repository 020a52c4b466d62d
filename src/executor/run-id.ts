import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_BYTES = 9;
const DIGITS = 13; // 62^13 > 2^72

/**
 * A new run id: `run-` and 72 random bits in 13 base-62 digits (17 characters, against 40 for `run-${uuid}`). A
 * run id is repeated in every workflow id, checkpoint id and message id of the run, so its length is stored bytes
 * per agent step (issues 11, 21). It only has to be unique within its session (every id built from it names the
 * session too): 72 bits leave a collision among a session's runs out of reach. Letters and digits only: no `-`,
 * `_` or `:`, which the ids built from it use.
 *
 * @example
 * newRunId(); // 'run-1fT0qLZ2m8XwB'
 */
export function newRunId(): string {
  let value = BigInt(`0x${randomBytes(RANDOM_BYTES).toString('hex')}`);
  let digits = '';
  for (let index = 0; index < DIGITS; index += 1) {
    digits = ALPHABET[Number(value % 62n)] + digits;
    value /= 62n;
  }
  return `run-${digits}`;
}
