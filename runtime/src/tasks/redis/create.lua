-- KEYS[2]: the tool's alive set (task ids scored by lease deadline); KEYS[3]: the
-- idempotency key's entry, or '' without one. ARGV[4] tool, [5] max_alive, [6] ttl_ms,
-- [7] poll_interval_ms, [8] lease_ms, [9] grace_ms (how long a task finished late stays
-- readable), [10] how many finished tasks the tool keeps.
-- Returns {1, ''} when created, {2, id} when the idempotency key names an alive task
-- (created by another replica meanwhile), {0, ''} when the tool has max_alive tasks alive.
local alive_set, idempotency = KEYS[2], KEYS[3]
local max_alive, ttl, lease, grace = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[8]), tonumber(ARGV[9])
if idempotency ~= '' then
  local existing = redis.call('GET', idempotency)
  if existing then
    local at = prefix .. 'task:' .. existing
    local t = load(at)
    if t and t.owner == owner and not lapsed(at, existing, t) and is_alive(t.status) then
      return {2, existing}
    end
  end
end
-- Tasks whose lease ran out leave the alive set now, read as failed.
for _, stale in ipairs(redis.call('ZRANGEBYSCORE', alive_set, '-inf', ms(now - 1))) do
  local at = prefix .. 'task:' .. stale
  local t = load(at)
  if t then
    lapsed(at, stale, t)
  end
  redis.call('ZREM', alive_set, stale)
end
if redis.call('ZCARD', alive_set) >= max_alive then
  return {0, ''}
end
local id = id_of(key)
redis.call('HSET', key, 'tool', ARGV[4], 'owner', owner, 'status', 'working', 'created', stamp,
  'updated', stamp, 'ttl', ARGV[6], 'poll', ARGV[7], 'lease_ms', ARGV[8], 'lease', ms(now + lease),
  'born', ms(now), 'grace', ARGV[9], 'keep', ARGV[10], 'pending', 0)
redis.call('PEXPIRE', key, ms(ttl + grace))
redis.call('ZADD', alive_set, ms(now + lease), id)
redis.call('PEXPIRE', alive_set, ms(ttl + grace))
if idempotency ~= '' then
  redis.call('SET', idempotency, id, 'PX', ms(ttl))
end
return {1, ''}
