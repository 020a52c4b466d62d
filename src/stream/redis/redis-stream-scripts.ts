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
 * Skip the chunks whose identity the stream holds, reserve the next sequences for the others and XADD each
 * with id `<sequence>-0` (fields `s` = step, `c` = JSON, `k` = key for a caller-keyed chunk); reply: the
 * number of chunks stored, or -1 when the stream is ended or failed. Identities live in the ids hash: a
 * writer's own keys (`w/<writerId>/<counter>`, sent in counter order) as its highest counter stored, a
 * caller's keys (`k/<key>`) one field each. Atomic, so concurrent writers get contiguous, unique ranges and
 * a batch re-sent after a reconnect (ioredis re-sends unanswered commands) stores nothing twice.
 * KEYS: meta, chunks, ids. ARGV: now, then step, JSON and key per chunk.
 *
 * @example
 * const stored = await appendChunksScript.run(client, [keys.meta, keys.chunks, keys.ids], [Date.now(), 1, '{"type":"text_delta"}', 'w/Zq3x9LmPa0Qe/1']);
 */
export const appendChunksScript = new RedisLuaScript(`
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'ended' or status == 'failed' then return -1 end
if not status then redis.call('HSET', KEYS[1], 'status', 'active', 'createdAt', ARGV[1]) end
local fresh, highs, seen = {}, {}, {}
for i = 2, #ARGV, 3 do
  local key = ARGV[i + 2]
  local writer, counter = string.match(key, '^w/([^/]+)/(%d+)$')
  if writer then
    local field = 'w/' .. writer
    local high = highs[field] or tonumber(redis.call('HGET', KEYS[3], field) or '0')
    if tonumber(counter) > high then
      fresh[#fresh + 1] = i
      highs[field] = tonumber(counter)
    else
      highs[field] = high
    end
  elseif not seen[key] and redis.call('HEXISTS', KEYS[3], key) == 0 then
    fresh[#fresh + 1] = i
    seen[key] = true
  end
end
local count = #fresh
local first = redis.call('HINCRBY', KEYS[1], 'lastSequence', count) - count + 1
for n, i in ipairs(fresh) do
  local id = string.format('%d-0', first + n - 1)
  local key = ARGV[i + 2]
  if string.sub(key, 1, 2) == 'k/' then
    redis.call('XADD', KEYS[2], id, 's', ARGV[i], 'c', ARGV[i + 1], 'k', key)
    redis.call('HSET', KEYS[3], key, first + n - 1)
  else
    redis.call('XADD', KEYS[2], id, 's', ARGV[i], 'c', ARGV[i + 1])
  end
end
for field, high in pairs(highs) do redis.call('HSET', KEYS[3], field, high) end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[1])
return count
`);

/**
 * Move an active (or missing) stream to ended/failed, wake readers through the control stream and publish the end hint
 * (ARGV[8] on channel ARGV[7], see `RedisEndHints`); reply 1 when it changed, 0 when it was already ended or failed.
 * KEYS: meta, control. ARGV: status, now, hasOutput ('1'/'0'), output JSON, hasError ('1'/'0'), error, end channel,
 * end hint key.
 *
 * @example
 * const hint = [channel, redisEndHintKey('s1')];
 * await finishStreamScript.run(client, [keys.meta, keys.control], ['ended', Date.now(), '1', '"done"', '0', '', ...hint]);
 */
export const finishStreamScript = new RedisLuaScript(`
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'ended' or status == 'failed' then return 0 end
if not status then redis.call('HSET', KEYS[1], 'lastSequence', 0, 'createdAt', ARGV[2]) end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updatedAt', ARGV[2])
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'output', ARGV[4]) end
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'error', ARGV[6]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 16, '*', 'status', ARGV[1])
redis.call('PUBLISH', ARGV[7], ARGV[8])
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
 * XDEL every chunk whose step exceeds ARGV[1] (written after sequence ARGV[2]; of agent ARGV[3] unless it is
 * empty), scanning the stream in pages, and forget the caller keys of the deleted chunks; reply: chunks
 * deleted. The stream's last id is kept, so sequences are never reused.
 * KEYS: chunks, ids. ARGV: step, after-sequence, agent id ('' = every agent).
 *
 * @example
 * const removed = await cleanupToStepScript.run(client, [keys.chunks, keys.ids], [2, 0]);
 */
export const cleanupToStepScript = new RedisLuaScript(`
local step = tonumber(ARGV[1])
local after = tonumber(ARGV[2] or '0')
local agent = ARGV[3] or ''
local start = string.format('%d-0', after + 1)
local removed = 0
while true do
  local entries = redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', 500)
  if #entries == 0 then break end
  local doomed, keys = {}, {}
  for _, entry in ipairs(entries) do
    local fields = entry[2]
    local entryStep, entryKey, entryChunk
    for i = 1, #fields, 2 do
      if fields[i] == 's' then entryStep = tonumber(fields[i + 1]) end
      if fields[i] == 'k' then entryKey = fields[i + 1] end
      if fields[i] == 'c' then entryChunk = fields[i + 1] end
    end
    local owned = agent == '' or (entryChunk ~= nil and cjson.decode(entryChunk).agentId == agent)
    if entryStep and entryStep > step and owned then
      doomed[#doomed + 1] = entry[1]
      if entryKey then keys[#keys + 1] = entryKey end
    end
  end
  if #doomed > 0 then removed = removed + redis.call('XDEL', KEYS[1], unpack(doomed)) end
  if #keys > 0 then redis.call('HDEL', KEYS[2], unpack(keys)) end
  if #entries < 500 then break end
  local sequence = tonumber(string.match(entries[#entries][1], '^(%d+)-'))
  start = string.format('%d-0', sequence + 1)
end
return removed
`);

/**
 * Retention: delete the chunks (and chunk identities) of an ended or failed stream, keep its meta hash. KEYS: meta,
 * chunks, ids. Reply: the number of chunks deleted (0 for an active or unknown stream).
 *
 * @example
 * const deleted = await pruneChunksScript.run(client, [keys.meta, keys.chunks, keys.ids], []);
 */
export const pruneChunksScript = new RedisLuaScript(`
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'ended' and status ~= 'failed' then return 0 end
local deleted = redis.call('XLEN', KEYS[2])
redis.call('DEL', KEYS[2], KEYS[3])
return deleted
`);
