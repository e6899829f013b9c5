--[[
  Settles an approval whose job is running: the recorded decision if there is one, else the
  fallback (expired or no-decision), recorded so that a late decide gets a definite answer. Takes
  the approval out of the pending set and gives its record its time to live.

  KEYS[1] the approval record hash: P:approval.<approvalId>
  KEYS[2] the pending approvals set: P:approvals.pending
  ARGV[1] approval id
  ARGV[2] fallback decision JSON
  ARGV[3] fallback outcome: 'expired' or 'no-decision'
  ARGV[4] time to live of a settled record, in seconds
  ARGV[5] (optional) 'wait': an undecided approval whose expiry has not come yet by Redis's
          clock (TIME) is left as it is, and {'NOT_YET', ms left} returned. Absent or '': the
          fallback is recorded whatever the time (the behaviour before this argument existed).
  ARGV[6] (optional) slack in ms: an expiry at most this far ahead counts as come. Default 0.

  Returns {'NOT_FOUND'} for an unknown approval, {'NOT_YET', ms left} (see ARGV[5]), else
  {outcome, decision JSON}.
]]
if redis.call('HEXISTS', KEYS[1], 'request') == 0 then return {'NOT_FOUND'} end
local existing = redis.call('HGET', KEYS[1], 'decision')
local outcome = redis.call('HGET', KEYS[1], 'outcome')
if not existing then
  existing = ARGV[2]
  outcome = ARGV[3]
  if ARGV[5] == 'wait' then
    -- One clock for every expiry: Redis's. A worker whose clock runs fast (BullMQ promotes delayed
    -- jobs by the clock of the worker that looks) must not expire an approval early.
    local expiresAt = tonumber(redis.call('HGET', KEYS[1], 'expiresAt'))
    local time = redis.call('TIME')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    local left = expiresAt and (expiresAt - now - (tonumber(ARGV[6]) or 0)) or 0
    if left > 0 then return {'NOT_YET', tostring(left)} end
  end
  redis.call('HSET', KEYS[1], 'decision', existing, 'outcome', outcome)
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return {outcome, existing}
