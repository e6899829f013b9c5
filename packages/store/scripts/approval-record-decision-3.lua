--[[
  Records a decision on an approval, first and atomically. The first decision wins; the record is
  written before anyone is told, so nothing that happens afterwards (a crash, a lost promote) can
  undo or double it. A decision for an approval whose run is gone (cancelled, removed) or is now
  another incarnation under the same id is refused, and the approval is settled as no-decision in
  the same step, so no later decision can land either.

  KEYS[1] the approval record hash: P:approval.<approvalId>
  KEYS[2] the pending approvals set: P:approvals.pending
  KEYS[3] the run's BullMQ job hash: P:agent-runs:<runId> (KEYS[1] again when the request names
          no incarnation)
  ARGV[1] approval id
  ARGV[2] decision JSON
  ARGV[3] the decision time, epoch ms, by the caller's clock (kept in the decision JSON; not
          read here). Expiry is judged by Redis's own clock (TIME), never by this, so a caller whose
          clock runs fast cannot refuse a decision that is still in time, nor one that runs slow
          land a decision after the expiry; the decided approval's score in the pending set (what
          the sweeper picks it by) is Redis's time too
  ARGV[4] the request's run incarnation ('' for none)
  ARGV[5] the no-decision record JSON, for a run that is gone
  ARGV[6] time to live of a settled record, in seconds
  ARGV[7] the request text the caller read and checked before: the incarnation and the run it
          names came from it, so a record whose request is no longer that text is left alone

  Returns {'NOT_FOUND'}, {'CHANGED'}, {'EXPIRED'[, decision]}, {'SETTLED', decision},
  {'ALREADY_DECIDED', decision} or {'OK', decision, request}.
]]
local request = redis.call('HGET', KEYS[1], 'request')
if not request then return {'NOT_FOUND'} end
if request ~= ARGV[7] then return {'CHANGED'} end
local existing = redis.call('HGET', KEYS[1], 'decision')
if existing then
  local outcome = redis.call('HGET', KEYS[1], 'outcome')
  if outcome == 'expired' then return {'EXPIRED', existing} end
  if outcome == 'no-decision' then return {'SETTLED', existing} end
  return {'ALREADY_DECIDED', existing}
end
-- TIME before a write is allowed: Redis 7 always replicates a script by its effects.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expiresAt = tonumber(redis.call('HGET', KEYS[1], 'expiresAt'))
if expiresAt and now >= expiresAt then return {'EXPIRED'} end
if ARGV[4] ~= '' then
  local data = redis.call('HGET', KEYS[3], 'data')
  local current = nil
  if data then
    local ok, decoded = pcall(cjson.decode, data)
    if ok and type(decoded) == 'table' then current = decoded['incarnation'] end
  end
  if not data or (type(current) == 'string' and current ~= ARGV[4]) then
    redis.call('HSET', KEYS[1], 'decision', ARGV[5], 'outcome', 'no-decision')
    redis.call('ZREM', KEYS[2], ARGV[1])
    redis.call('EXPIRE', KEYS[1], tonumber(ARGV[6]))
    return {'SETTLED', ARGV[5]}
  end
end
redis.call('HSET', KEYS[1], 'decision', ARGV[2], 'outcome', 'decision')
-- Scored by Redis's clock too: the sweeper picks decided approvals by this score against TIME, so a
-- decider whose clock runs fast must not push its decision out of the sweeper's reach.
redis.call('ZADD', KEYS[2], 'XX', now, ARGV[1])
return {'OK', ARGV[2], request}
