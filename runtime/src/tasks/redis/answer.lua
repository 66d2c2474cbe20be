-- ARGV[4..]: pairs of an input key and its answer (JSON). Each answer to an outstanding
-- question is kept for the running replica to take; answers to anything else are ignored.
-- Returns 0 for a task that does not exist or is another subject's, 1 otherwise.
local t = load(key)
if not t or t.owner ~= owner then
  return 0
end
if lapsed(key, id_of(key), t) or not is_alive(t.status) then
  return 1
end
local pending = tonumber(t.pending)
for i = 4, #ARGV, 2 do
  local question = 'q:' .. ARGV[i]
  if redis.call('HEXISTS', key, question) == 1 then
    redis.call('HDEL', key, question)
    redis.call('HSET', key, 'a:' .. ARGV[i], ARGV[i + 1])
    pending = pending - 1
  end
end
local status = 'input_required'
if pending == 0 then
  status = 'working'
end
redis.call('HSET', key, 'pending', pending, 'status', status, 'updated', stamp)
return 1
