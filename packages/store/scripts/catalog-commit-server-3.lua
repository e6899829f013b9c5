--[[
  The write of catalog-commit-5 for a Redis Cluster, where the definitions hash and a server's keys
  sit in different slots: the caller checks the definition before and after, and the channel is an
  argument (a channel is not a key, and classic PUBLISH reaches every node).

  KEYS[1] the server's catalog entry
  KEYS[2] the server's catalog status
  KEYS[3] the server's catalog version
  ARGV[1] expected entry text ('' for none)
  ARGV[2] mode: set, keep or delete
  ARGV[3] new entry text (mode set)
  ARGV[4] new status text
  ARGV[5] event to publish ('' for none)
  ARGV[6] the `catalog.updated` channel

  Returns 1 when written, -1 when the entry moved.
]]
-- A key of another type (hand-made, or damage) reads as no entry: it is overwritten or deleted
-- below, never left to fail every write of the server.
local entry = false
if redis.call('TYPE', KEYS[1]).ok == 'string' then entry = redis.call('GET', KEYS[1]) end
if (entry or '') ~= ARGV[1] then return -1 end
if ARGV[2] == 'set' then
  redis.call('SET', KEYS[1], ARGV[3])
  redis.call('SET', KEYS[3], redis.sha1hex(ARGV[3]))
elseif ARGV[2] == 'delete' or not entry then
  redis.call('DEL', KEYS[1], KEYS[3])
else
  redis.call('SET', KEYS[3], redis.sha1hex(entry))
end
redis.call('SET', KEYS[2], ARGV[4])
if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[5]) end
return 1
