import { describe, expect, it } from 'vitest';
import { decideQueuePlacement, enqueueParams, MAX_QUEUE_PRIORITY, type PlacementDecision, type PlacementRequest } from '../../../src/orchestration/queue-placement.js';

const request = (over: Partial<PlacementRequest>): PlacementRequest => ({ queueName: 'agents', options: {}, perCallRegistrations: false, ...over });

describe('decideQueuePlacement', () => {
  const cases: Array<[string, PlacementRequest, PlacementDecision]> = [
    ['no queue: in place', request({ queueName: undefined }), { kind: 'local' }],
    ['no queue, per-call hooks: in place (they are registered here)', request({ queueName: undefined, perCallRegistrations: true }), { kind: 'local' }],
    ['a queue: queued', request({}), { kind: 'queued', placement: { name: 'agents' } }],
    ['priority and partition key carried', request({ options: { priority: 7, partitionKey: 'tenant-a' } }), { kind: 'queued', placement: { name: 'agents', priority: 7, partitionKey: 'tenant-a' } }],
    ['priority 0 and the maximum are accepted', request({ options: { priority: MAX_QUEUE_PRIORITY } }), { kind: 'queued', placement: { name: 'agents', priority: MAX_QUEUE_PRIORITY } }],
    ['priority without a queue', request({ queueName: undefined, options: { priority: 1 } }), { kind: 'refused', reason: 'option_without_queue', field: 'priority' }],
    ['partition key without a queue', request({ queueName: undefined, options: { partitionKey: 'a' } }), { kind: 'refused', reason: 'option_without_queue', field: 'partitionKey' }],
    ['negative priority', request({ options: { priority: -1 } }), { kind: 'refused', reason: 'invalid_priority', field: 'priority' }],
    ['fractional priority', request({ options: { priority: 1.5 } }), { kind: 'refused', reason: 'invalid_priority', field: 'priority' }],
    ['priority past the maximum', request({ options: { priority: MAX_QUEUE_PRIORITY + 1 } }), { kind: 'refused', reason: 'invalid_priority', field: 'priority' }],
    ['empty partition key', request({ options: { partitionKey: '' } }), { kind: 'refused', reason: 'invalid_partition_key', field: 'partitionKey' }],
    ['partition key too long', request({ options: { partitionKey: 'k'.repeat(201) } }), { kind: 'refused', reason: 'invalid_partition_key', field: 'partitionKey' }],
    ['per-call hooks on a queue', request({ perCallRegistrations: true }), { kind: 'refused', reason: 'per_call_registrations', field: 'hooks' }],
  ];
  it.each(cases)('%s', (_label, given, expected) => {
    expect(decideQueuePlacement(given)).toEqual(expected);
  });
});

describe('enqueueParams', () => {
  it('maps a placement to DBOS start parameters, and nothing for a run in place', () => {
    expect(enqueueParams(undefined)).toEqual({});
    expect(enqueueParams({ name: 'agents' })).toEqual({ queueName: 'agents' });
    expect(enqueueParams({ name: 'agents', priority: 0, partitionKey: 't' })).toEqual({ queueName: 'agents', enqueueOptions: { priority: 0, queuePartitionKey: 't' } });
  });
});
