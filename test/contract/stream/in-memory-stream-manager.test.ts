import { InMemoryStreamManager } from '../../../src/stream/memory/in-memory-stream-manager.js';
import { describeStreamManagerContract } from '../../../src/testing/contracts/index.js';

describeStreamManagerContract('InMemoryStreamManager', () => new InMemoryStreamManager(), { endHints: true });
