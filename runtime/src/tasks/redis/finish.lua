-- The running replica ends its task: ARGV[4] status, ARGV[5] payload (JSON), ARGV[6] status
-- message ('' for none). A task that ended already (cancelled, lapsed) is left as it is.
local t = load(key)
if not t or not is_alive(t.status) then
  return 0
end
local message = ARGV[6]
if message == '' then
  message = nil
end
finish(key, id_of(key), t, ARGV[4], ARGV[5], message)
return 1
