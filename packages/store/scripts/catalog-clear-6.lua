--[[
  Clears what a removed server left behind, unless it was added again meanwhile, and publishes
  `catalog.updated` when an entry existed.

  KEYS[1] the server definitions hash
  KEYS[2] the server's catalog entry
  KEYS[3] the server's catalog status
  KEYS[4] the `catalog.updated` channel
  KEYS[5] the server's session generation
  KEYS[6] the server's catalog version
  ARGV[1] server id
  ARGV[2] event to publish

  Returns 1 when cleared, 0 when the server exists again.
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local existed = redis.call('DEL', KEYS[2])
redis.call('DEL', KEYS[3], KEYS[5], KEYS[6])
if existed == 1 then redis.call('PUBLISH', KEYS[4], ARGV[2]) end
return 1
