import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_BYTES = 16;
const DIGITS = 22; // 62^22 > 2^128

/**
 * A new run id: `run-` and 128 random bits in 22 base-62 digits (26 characters, against 40 for `run-${uuid}`). A
 * run id is repeated in every workflow id, checkpoint id and message id of the run, so its length is stored bytes
 * per agent step (issue 11). Letters and digits only: no `-`, `_` or `:`, which the ids built from it use.
 *
 * @example
 * newRunId(); // 'run-4fT0qLZ2m8XwB1yKc9RdVa'
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
