--[[
  Deletes a lease, only while `owner` still holds it.

  KEYS[1] the lease key
  ARGV[1] owner token

  Returns 1 when deleted, 0 when the lease is gone or held by someone else.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
