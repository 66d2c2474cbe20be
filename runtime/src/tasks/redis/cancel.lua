-- Cancels an alive task (its replica stops the body when it next renews it); a finished one
-- is left as it is. Returns 0 for a task that does not exist or is another subject's.
local t = load(key)
if not t or t.owner ~= owner then
  return 0
end
if not lapsed(key, id_of(key), t) and is_alive(t.status) then
  finish(key, id_of(key), t, 'cancelled', nil, nil)
end
return 1
