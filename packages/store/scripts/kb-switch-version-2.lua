--[[
  Switches a knowledge base's version pointer, only if nobody switched it since the caller read it
  and only while the knowledge base exists. The new manifest was written aside before; this is the
  one atomic step of a new version.

  KEYS[1] the knowledge base definitions hash: P:kbs
  KEYS[2] the knowledge base's version pointer: P:kb.<name>.version
  ARGV[1] the knowledge base's name
  ARGV[2] the pointer value the caller read ('' when there was none)
  ARGV[3] the new version

  Returns 'ok' when switched, 'gone' when the knowledge base was removed, 'conflict' when the
  pointer moved meanwhile.
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 'gone' end
local current = redis.call('GET', KEYS[2])
if (current or '') ~= ARGV[2] then return 'conflict' end
redis.call('SET', KEYS[2], ARGV[3])
return 'ok'
