import { StoreError } from '../errors/index.js';

/**
 * The error every method of a closed store or stream manager throws at once (instead of waiting on a pool that is
 * gone): StoreError `STORE_ERROR`, not retryable, `data.condition` `'STORE_CLOSED'`. `what` names the closed object.
 *
 * @example
 * if (this.closed) throw storeClosedError('stream manager', 'open a stream');
 */
export function storeClosedError(what: string, operation: string): StoreError {
  return new StoreError('STORE_ERROR', `Could not ${operation}: the ${what} is closed (close() was called). Close stores last, after executor.close() and DBOS.shutdown().`, {
    data: { operation, condition: 'STORE_CLOSED' },
  });
}

/**
 * True for the error of {@link storeClosedError} (also one revived by DBOS as a plain `Error`).
 *
 * @example
 * if (isStoreClosedError(error)) console.log('the store was closed');
 */
export function isStoreClosedError(error: unknown): boolean {
  return StoreError.isInstance(error) && (error as { data?: { condition?: unknown } }).data?.condition === 'STORE_CLOSED';
}
