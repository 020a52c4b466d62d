import { RedisLuaScript } from './redis-lua-script.js';

/**
 * Create the stream's meta hash as active when missing; reply: its status.
 * KEYS: meta. ARGV: now (epoch ms).
 *
 * @example
 * const status = await openStreamScript.run(client, [keys.meta], [Date.now()]);
 */
export const openStreamScript = new RedisLuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'status', 'active', 'lastSequence', 0, 'createdAt', ARGV[1], 'updatedAt', ARGV[1])
end
return redis.call('HGET', KEYS[1], 'status')
`);

/**
 * Reserve the next sequences and XADD each chunk with id `<sequence>-0` (fields `s` = step, `c` = JSON);
 * reply: the first sequence, or -1 when the stream is ended or failed. Atomic, so concurrent writers get
 * contiguous, unique ranges.
 * KEYS: meta, chunks. ARGV: now, then step and JSON per chunk.
 *
 * @example
 * const first = await appendChunksScript.run(client, [keys.meta, keys.chunks], [Date.now(), 1, '{"type":"text_delta"}']);
 */
export const appendChunksScript = new RedisLuaScript(`
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'ended' or status == 'failed' then return -1 end
if not status then redis.call('HSET', KEYS[1], 'status', 'active', 'createdAt', ARGV[1]) end
local count = (#ARGV - 1) / 2
local last = redis.call('HINCRBY', KEYS[1], 'lastSequence', count)
local first = last - count + 1
for i = 0, count - 1 do
  redis.call('XADD', KEYS[2], string.format('%d-0', first + i), 's', ARGV[2 + i * 2], 'c', ARGV[3 + i * 2])
end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[1])
return first
`);

/**
 * Move an active (or missing) stream to ended/failed and wake readers through the control stream; reply 1
 * when it changed, 0 when it was already ended or failed.
 * KEYS: meta, control. ARGV: status, now, hasOutput ('1'/'0'), output JSON, hasError ('1'/'0'), error.
 *
 * @example
 * await finishStreamScript.run(client, [keys.meta, keys.control], ['ended', Date.now(), '1', '"done"', '0', '']);
 */
export const finishStreamScript = new RedisLuaScript(`
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'ended' or status == 'failed' then return 0 end
if not status then redis.call('HSET', KEYS[1], 'lastSequence', 0, 'createdAt', ARGV[2]) end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updatedAt', ARGV[2])
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'output', ARGV[4]) end
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'error', ARGV[6]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 16, '*', 'status', ARGV[1])
return 1
`);

/**
 * Set a stream active again, clearing output and error; reply 0 when the stream does not exist.
 * KEYS: meta, control. ARGV: now.
 *
 * @example
 * const found = await reactivateStreamScript.run(client, [keys.meta, keys.control], [Date.now()]);
 */
export const reactivateStreamScript = new RedisLuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'active', 'updatedAt', ARGV[1])
redis.call('HDEL', KEYS[1], 'output', 'error')
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 16, '*', 'status', 'active')
return 1
`);

/**
 * XDEL every chunk whose step exceeds ARGV[1], scanning the stream in pages; reply: chunks deleted.
 * The stream's last id is kept, so sequences are never reused.
 * KEYS: chunks. ARGV: step.
 *
 * @example
 * const removed = await cleanupToStepScript.run(client, [keys.chunks], [2]);
 */
export const cleanupToStepScript = new RedisLuaScript(`
local step = tonumber(ARGV[1])
local after = tonumber(ARGV[2] or '0')
local start = string.format('%d-0', after + 1)
local removed = 0
while true do
  local entries = redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', 500)
  if #entries == 0 then break end
  local doomed = {}
  for _, entry in ipairs(entries) do
    local fields = entry[2]
    for i = 1, #fields, 2 do
      if fields[i] == 's' and tonumber(fields[i + 1]) > step then doomed[#doomed + 1] = entry[1] end
    end
  end
  if #doomed > 0 then removed = removed + redis.call('XDEL', KEYS[1], unpack(doomed)) end
  if #entries < 500 then break end
  local sequence = tonumber(string.match(entries[#entries][1], '^(%d+)-'))
  start = string.format('%d-0', sequence + 1)
end
return removed
`);
