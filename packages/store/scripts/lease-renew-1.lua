--[[
  Extends a lease, only while `owner` still holds it.

  KEYS[1] the lease key
  ARGV[1] owner token
  ARGV[2] new time to live, in milliseconds

  Returns 1 when renewed, 0 when the lease is gone or held by someone else.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
