import { InvalidArgumentError } from '../errors/index.js';

/**
 * Validate a numeric option: a positive integer, else InvalidArgumentError naming the option.
 *
 * @example
 * const batchSize = positiveIntegerOption(options.batchSize ?? 100, 'batchSize');
 */
export function positiveIntegerOption(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`The \`${name}\` option must be a positive integer.`);
  return value;
}
