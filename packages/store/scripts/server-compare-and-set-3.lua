--[[
  Sets a server definition only when its current text is the one the caller read, so that
  concurrent read-modify-write updates (setEnabled racing put) never lose a change, bumps the
  definitions version and publishes the change event.

  KEYS[1] the server definitions hash
  KEYS[2] the `servers.changed` channel
  KEYS[3] the server definitions version
  ARGV[1] server id
  ARGV[2] expected definition text ('' for none)
  ARGV[3] new definition text
  ARGV[4] change event

  Returns 1 when set, 0 when the definition moved.
]]
local current = redis.call('HGET', KEYS[1], ARGV[1])
if (current or '') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('INCR', KEYS[3])
redis.call('PUBLISH', KEYS[2], ARGV[4])
return 1
