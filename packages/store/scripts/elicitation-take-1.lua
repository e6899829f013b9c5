--[[
  Takes an elicitation's answer for one tool call, or gives it back: an answer is used by one call
  only. The call that took it may take it again (the same call, made again once a further question
  it asked is answered; the tool journal, not this record, keeps a call that went out with an
  answer from going out again after a crash); any other call is refused and must ask anew. A call whose outcome was discarded (it parked on another
  question, or was aborted) gives back what it took, so that the call made again in its place can
  take it.

  KEYS[1] the elicitation record hash: P:elicitation.<elicitationId>
  ARGV[1] the tool call id taking or giving back the answer
  ARGV[2] 'take' or 'release'

  Returns 'TAKEN' (now, or before by the same call), 'OTHER' (taken by another call),
  'UNANSWERED' (no answer yet, or no such record) or 'RELEASED'.
]]
if ARGV[2] == 'release' then
  if redis.call('HGET', KEYS[1], 'takenBy') == ARGV[1] then redis.call('HDEL', KEYS[1], 'takenBy') end
  return 'RELEASED'
end
if redis.call('HEXISTS', KEYS[1], 'response') == 0 then return 'UNANSWERED' end
local taker = redis.call('HGET', KEYS[1], 'takenBy')
if taker and taker ~= ARGV[1] then return 'OTHER' end
if not taker then redis.call('HSET', KEYS[1], 'takenBy', ARGV[1]) end
return 'TAKEN'
