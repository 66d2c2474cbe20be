-- The running replica puts a question: ARGV[4] its key, ARGV[5] the input request (JSON).
-- Returns 1 when put, 2 when the key was asked before in this task, 0 when the task ended.
local t = load(key)
if not t or not is_alive(t.status) then
  return 0
end
if redis.call('HEXISTS', key, 'u:' .. ARGV[4]) == 1 then
  return 2
end
redis.call('HSET', key, 'u:' .. ARGV[4], 1, 'q:' .. ARGV[4], ARGV[5], 'status', 'input_required',
  'updated', stamp)
redis.call('HINCRBY', key, 'pending', 1)
return 1
