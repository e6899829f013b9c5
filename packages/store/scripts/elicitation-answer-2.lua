--[[
  Records the answer to an elicitation, first and atomically: the first answer wins and is never
  replaced, so a replayed request or a second person answering gets the first answer back as a
  refusal. An answer after the expiry is refused; the expiry itself settles the elicitation with
  the answer `cancel` through this script too (ARGV[4] = 'expired').

  KEYS[1] the elicitation record hash: P:elicitation.<elicitationId>
  KEYS[2] the pending elicitations set: P:elicitations.pending
  ARGV[1] elicitation id
  ARGV[2] answer record JSON
  ARGV[3] now, epoch ms
  ARGV[4] 'answer' for a person's answer, 'expired' for the settlement at expiry
  ARGV[5] time to live of a settled record, in seconds

  Returns {'NOT_FOUND'}, {'EXPIRED', answer?}, {'ALREADY_ANSWERED', answer} or {'OK', request}.
]]
if redis.call('HEXISTS', KEYS[1], 'request') == 0 then return {'NOT_FOUND'} end
local existing = redis.call('HGET', KEYS[1], 'response')
if existing then
  if redis.call('HGET', KEYS[1], 'outcome') == 'expired' then return {'EXPIRED', existing} end
  return {'ALREADY_ANSWERED', existing}
end
local expiresAt = tonumber(redis.call('HGET', KEYS[1], 'expiresAt'))
if ARGV[4] == 'answer' and expiresAt and tonumber(ARGV[3]) >= expiresAt then return {'EXPIRED'} end
redis.call('HSET', KEYS[1], 'response', ARGV[2], 'outcome', ARGV[4])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
redis.call('ZREM', KEYS[2], ARGV[1])
return {'OK', redis.call('HGET', KEYS[1], 'request')}
