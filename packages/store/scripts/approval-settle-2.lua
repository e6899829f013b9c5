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

  Returns {'NOT_FOUND'} for an unknown approval, else {outcome, decision JSON}.
]]
if redis.call('HEXISTS', KEYS[1], 'request') == 0 then return {'NOT_FOUND'} end
local existing = redis.call('HGET', KEYS[1], 'decision')
local outcome = redis.call('HGET', KEYS[1], 'outcome')
if not existing then
  existing = ARGV[2]
  outcome = ARGV[3]
  redis.call('HSET', KEYS[1], 'decision', existing, 'outcome', outcome)
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return {outcome, existing}
