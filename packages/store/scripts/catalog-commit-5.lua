--[[
  Writes one server's catalog entry, version and status, and publishes `catalog.updated`, in one
  step, guarded twice: the stored definition must still be the text the refresh started from
  (else 0), and the entry must still be the one the caller read (else -1). The version key always
  ends as the SHA-1 of the stored entry, or absent with it: a `keep` backfills it. An entry key of
  another Redis type counts as no entry (expected text ''), and is replaced or deleted.

  KEYS[1] the server definitions hash
  KEYS[2] the server's catalog entry
  KEYS[3] the server's catalog status
  KEYS[4] the `catalog.updated` channel
  KEYS[5] the server's catalog version
  ARGV[1] server id
  ARGV[2] expected definition text
  ARGV[3] expected entry text ('' for none)
  ARGV[4] mode: set, keep or delete
  ARGV[5] new entry text (mode set)
  ARGV[6] new status text
  ARGV[7] event to publish ('' for none)

  Returns 1 when written, 0 when the definition moved, -1 when the entry moved.
]]
local definition = redis.call('HGET', KEYS[1], ARGV[1])
if (definition or '') ~= ARGV[2] then return 0 end
-- A key of another type (hand-made, or damage) reads as no entry: it is overwritten or deleted
-- below, never left to fail every write of the server.
local entry = false
if redis.call('TYPE', KEYS[2]).ok == 'string' then entry = redis.call('GET', KEYS[2]) end
if (entry or '') ~= ARGV[3] then return -1 end
if ARGV[4] == 'set' then
  redis.call('SET', KEYS[2], ARGV[5])
  redis.call('SET', KEYS[5], redis.sha1hex(ARGV[5]))
elseif ARGV[4] == 'delete' or not entry then
  redis.call('DEL', KEYS[2], KEYS[5])
else
  redis.call('SET', KEYS[5], redis.sha1hex(entry))
end
redis.call('SET', KEYS[3], ARGV[6])
if ARGV[7] ~= '' then redis.call('PUBLISH', KEYS[4], ARGV[7]) end
return 1
