--[[
  Sets a string key only while it still holds the value its writer read, so that a write based on
  a read never undoes a change made since (a delete, or another writer's value).

  KEYS[1] the key
  ARGV[1] the value read before: '' when the key was absent
  ARGV[2] the new value

  Returns 1 when set, 0 when the key changed since the read (nothing written).
]]
local current = redis.call('GET', KEYS[1])
if current == false then
  current = ''
end
if current ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
