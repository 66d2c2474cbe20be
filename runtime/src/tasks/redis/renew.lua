-- The running replica's heartbeat: extends the lease of an alive task and takes the answers
-- kept for it. KEYS[2]: the tool's alive set. Returns {status, key, answer, ...}, with status
-- 'gone' for a task forgotten meanwhile.
local t = load(key)
if not t then
  return {'gone'}
end
if is_alive(t.status) then
  local deadline = ms(now + tonumber(t.lease_ms))
  redis.call('HSET', key, 'lease', deadline)
  redis.call('ZADD', KEYS[2], deadline, id_of(key))
end
local reply = {t.status}
for field, value in pairs(t) do
  if string.sub(field, 1, 2) == 'a:' then
    table.insert(reply, string.sub(field, 3))
    table.insert(reply, value)
    redis.call('HDEL', key, field)
  end
end
return reply
