-- The task's fields for the subject asking (its lease checked first), or nothing for a task
-- that does not exist or is another subject's.
local t = load(key)
if not t or t.owner ~= owner then
  return {}
end
lapsed(key, id_of(key), t)
return redis.call('HGETALL', key)
