--[[
  Keeps the snapshot of one catalog version of a server readable for a time to live, for a run
  that was shown its tools. A missing snapshot is copied from the server's entry when the entry is
  still that version (its `version` field, the digest of its tools, names it).

  KEYS[1] the snapshot: P:mcp.snapshot.<serverId>.<version>
  KEYS[2] the server's catalog entry: P:mcp.tools.<serverId>
  ARGV[1] the version
  ARGV[2] time to live, in seconds

  Returns 1 when the snapshot existed (its TTL is refreshed), 2 when it was copied from the entry,
  0 when there is none and the entry is another version (or absent, or a key of another type).
]]
if redis.call('EXPIRE', KEYS[1], ARGV[2]) == 1 then return 1 end
if redis.call('TYPE', KEYS[2]).ok ~= 'string' then return 0 end
local entry = redis.call('GET', KEYS[2])
if not entry or not string.find(entry, '"version":"' .. ARGV[1] .. '"', 1, true) then return 0 end
redis.call('SET', KEYS[1], entry, 'EX', ARGV[2])
return 2
