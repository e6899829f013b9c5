--[[
  Takes an id out of a pending set (approvals or elicitations) whose record could not be read, but
  only if the record still reads as it did: a record registered or rewritten since the caller read
  it keeps its place. The record itself, if there is one, is left as it is, for an operator to
  inspect.

  KEYS[1] the record hash: P:approval.<id> or P:elicitation.<id>
  KEYS[2] the pending set: P:approvals.pending or P:elicitations.pending
  ARGV[1] the id
  ARGV[2] what the caller found: 'missing' (no key), 'wrong-type' (the key is not a hash),
          'no-request' (a hash without a request) or 'invalid-request'
  ARGV[3] for 'invalid-request', the request text the caller could not read ('' otherwise)

  Returns 1 when the id left the pending set, else 0.
]]
local kind = redis.call('TYPE', KEYS[1])['ok']
local found
if kind == 'none' then
  found = 'missing'
elseif kind ~= 'hash' then
  found = 'wrong-type'
else
  local request = redis.call('HGET', KEYS[1], 'request')
  if not request then
    found = 'no-request'
  elseif request == ARGV[3] then
    found = 'invalid-request'
  else
    return 0
  end
end
if found ~= ARGV[2] then return 0 end
return redis.call('ZREM', KEYS[2], ARGV[1])
