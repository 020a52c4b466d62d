export type { StreamManager, StreamReader, StreamWriter, StreamWriteOptions, CleanupOptions } from './stream-manager.js';
export type { ChunkHandover, StreamManagerStepRecords } from './step-records.js';
export { InMemoryStreamManager, type InMemoryStreamManagerOptions } from './memory/in-memory-stream-manager.js';
export {
  PostgresStreamManager,
  type PostgresStreamConnection,
  type PostgresStreamManagerOptions,
} from './postgres/postgres-stream-manager.js';
export { RedisStreamManager, type RedisStreamConnection, type RedisStreamManagerOptions } from './redis/redis-stream-manager.js';
export { isTerminalStatus } from './stream-status.js';
export { reclaimStream } from './reclaim-stream.js';
