-- Shared by every task script. KEYS[1] is the task's hash; ARGV[1] the prefix of the
-- server's task keys, ARGV[2] the digest of the subject asking ('-' without one), ARGV[3]
-- the time stamp (RFC 3339) of this change. Times compared are Redis's own (`TIME`, in ms),
-- so replicas whose clocks disagree still agree on leases.
local key, prefix, owner, stamp = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

-- Numbers go to Redis through '%.0f': Lua's default formatting keeps 14 digits.
local function ms(n)
  return string.format('%.0f', n)
end

local function is_alive(status)
  return status == 'working' or status == 'input_required'
end

-- The hash at `at` as a table, or nil.
local function load(at)
  local flat = redis.call('HGETALL', at)
  if #flat == 0 then
    return nil
  end
  local t = {}
  for i = 1, #flat, 2 do
    t[flat[i]] = flat[i + 1]
  end
  return t
end

-- Ends the task at `at` (table `t`) with `status`: out of its tool's alive set, into its
-- finished set (the oldest past what the tool keeps are deleted), and forgotten once its time
-- to live has passed and it was readable for a while after.
local function finish(at, id, t, status, payload, message)
  redis.call('HSET', at, 'status', status, 'updated', stamp)
  if payload then
    redis.call('HSET', at, 'payload', payload)
  end
  if message then
    redis.call('HSET', at, 'message', message)
  end
  redis.call('HDEL', at, 'lease')
  t.status = status
  redis.call('ZREM', prefix .. 'alive:' .. t.tool, id)
  local finished = prefix .. 'finished:' .. t.tool
  redis.call('ZADD', finished, ms(now), id)
  local excess = redis.call('ZCARD', finished) - tonumber(t.keep)
  if excess > 0 then
    for _, old in ipairs(redis.call('ZRANGE', finished, 0, excess - 1)) do
      redis.call('DEL', prefix .. 'task:' .. old)
    end
    redis.call('ZREMRANGEBYRANK', finished, 0, excess - 1)
  end
  local ttl = tonumber(t.ttl)
  local expire = math.max(tonumber(t.born) + ttl - now, math.min(tonumber(t.grace), ttl), 1)
  redis.call('PEXPIRE', at, ms(expire))
  redis.call('PEXPIRE', finished, ms(ttl + tonumber(t.grace)))
end

-- A task whose replica stopped renewing it: failed, as the extension says of a task whose
-- request can no longer complete. Returns whether it was.
local function lapsed(at, id, t)
  if not is_alive(t.status) or tonumber(t.lease) >= now then
    return false
  end
  local message = 'The replica running this task stopped renewing it for ' .. t.lease_ms
    .. ' ms (it stopped, or lost Redis), so the task failed.'
  finish(at, id, t, 'failed', '{"code":-32603,"message":"' .. message .. '"}', message)
  return true
end

-- The task's id from its key.
local function id_of(at)
  return string.sub(at, #prefix + 6)
end
