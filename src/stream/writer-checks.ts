import { canSendAhead } from '../database/send-ahead.js';
import { StreamError } from '../errors/index.js';
import type { ChunkConnection } from './chunk-sink.js';

/**
 * `connection` with every check of a statement sent ahead also reporting its failure to `onFailure`.
 *
 * @example
 * const observed = observingChecks(connection, (error) => noticeClosed(error));
 */
export function observingChecks(connection: ChunkConnection, onFailure: (error: unknown) => void): ChunkConnection {
  if (!canSendAhead(connection)) return connection;
  return {
    query: (text, values) => connection.query(text, values),
    sendAhead: (text, values, check, refused) =>
      connection.sendAhead(
        text,
        values,
        (result) => {
          try {
            check(result);
          } catch (error) {
            onFailure(error);
            throw error;
          }
        },
        (error) => {
          const named = refused === undefined ? error : refused(error);
          onFailure(named);
          return named;
        },
      ),
  };
}

/**
 * Whether `error` says the stream is ended or failed (an append's answer, or a write refused for it).
 *
 * @example
 * if (isClosedStreamError(error)) closed();
 */
export function isClosedStreamError(error: unknown): boolean {
  return StreamError.isInstance(error) && error.code === 'STREAM_CLOSED';
}

/**
 * The error a writer throws for a stream it knows ended or failed.
 *
 * @example
 * throw closedError('s1');
 */
export function closedError(streamId: string): StreamError {
  return new StreamError('STREAM_CLOSED', streamId, 'The stream has ended or failed; reactivate it with reactivateStream() before writing.');
}
