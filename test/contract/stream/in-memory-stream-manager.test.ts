import { InMemoryStreamManager } from '../../../src/stream/memory/in-memory-stream-manager.js';
import { describeStreamManagerContract } from '../../../src/testing/stream-manager-contract.js';

describeStreamManagerContract('InMemoryStreamManager', () => new InMemoryStreamManager());
