--[[
  Records the answer to an elicitation, first and atomically: the first answer wins and is never
  replaced, so a replayed request or a second person answering gets the first answer back as a
  refusal. An answer after the expiry is refused; the expiry itself settles the elicitation with
  the answer `cancel` through this script too (ARGV[4] = 'expired').

  An answer can only resume a run that is still there. The run's own BullMQ job hash says so: gone
  (cancelled or removed), holding another incarnation under the same id, or finished (`finishedOn`:
  completed with a `returnvalue`, else failed). Then the elicitation is closed in the same step,
  with the answer `cancel` and the outcome `closed`, so it leaves the pending set and no later
  answer can land. ARGV[4] = 'probe' only does that check: it closes the elicitation of a run that
  ended and records nothing else.

  KEYS[1] the elicitation record hash: P:elicitation.<elicitationId>
  KEYS[2] the pending elicitations set: P:elicitations.pending
  KEYS[3] the run's BullMQ job hash: P:agent-runs:<runId> (KEYS[1] again for 'expired', which
          never looks at the run, or when the request cannot be read)
  ARGV[1] elicitation id
  ARGV[2] answer record JSON ('' for 'probe')
  ARGV[3] now, epoch ms
  ARGV[4] 'answer' for a person's answer, 'expired' for the settlement at expiry, 'probe'
  ARGV[5] time to live of a settled record, in seconds
  ARGV[6] the request's run incarnation ('' for none)
  ARGV[7] the answer record JSON of a closed elicitation, with `%s` where the run's state goes
  ARGV[8] for 'answer' and 'probe', the request text the caller read before: KEYS[3] and ARGV[6]
          came from it, so a record whose request is no longer that text is left alone
  ARGV[9] (optional) for 'expired': 'wait' leaves an unanswered elicitation whose expiry has not
          come yet by Redis's clock alone and returns {'NOT_YET', ms left}
  ARGV[10] (optional) slack in ms for 'wait': an expiry at most this far ahead counts as come

  Whether the expiry has come is judged by Redis's clock (TIME), never by the caller's: ARGV[3]
  only dates what is written.

  Returns {'NOT_FOUND'}, {'CHANGED'} (not for 'expired'), {'EXPIRED', answer?}, {'CLOSED', runState},
  {'ALREADY_ANSWERED', answer}, {'OPEN'} (probe only), {'NOT_YET', ms left} ('expired' with 'wait')
  or {'OK', request}.
]]
local request = redis.call('HGET', KEYS[1], 'request')
if not request then return {'NOT_FOUND'} end
if ARGV[4] ~= 'expired' and request ~= ARGV[8] then return {'CHANGED'} end
local existing = redis.call('HGET', KEYS[1], 'response')
if existing then
  local outcome = redis.call('HGET', KEYS[1], 'outcome')
  if outcome == 'expired' then return {'EXPIRED', existing} end
  if outcome == 'closed' then return {'CLOSED', redis.call('HGET', KEYS[1], 'runState') or 'cancelled'} end
  return {'ALREADY_ANSWERED', existing}
end

local function runEnded()
  if KEYS[3] == KEYS[1] then return nil end
  local data = redis.call('HGET', KEYS[3], 'data')
  if not data then return 'cancelled' end
  if ARGV[6] ~= '' then
    local ok, decoded = pcall(cjson.decode, data)
    if ok and type(decoded) == 'table' and type(decoded['incarnation']) == 'string'
      and decoded['incarnation'] ~= ARGV[6] then
      return 'cancelled'
    end
  end
  if redis.call('HEXISTS', KEYS[3], 'finishedOn') == 1 then
    if redis.call('HEXISTS', KEYS[3], 'returnvalue') == 1 then return 'completed' end
    return 'failed'
  end
  return nil
end

if ARGV[4] ~= 'expired' then
  -- Checked before the expiry: the expiry of a run that is gone is never settled by its job.
  local ended = runEnded()
  if ended then
    redis.call('HSET', KEYS[1], 'response', string.format(ARGV[7], ended), 'outcome', 'closed', 'runState', ended)
    redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
    redis.call('ZREM', KEYS[2], ARGV[1])
    return {'CLOSED', ended}
  end
  if ARGV[4] == 'probe' then return {'OPEN'} end
end
local expiresAt = tonumber(redis.call('HGET', KEYS[1], 'expiresAt'))
if expiresAt then
  -- One clock for every expiry: Redis's. BullMQ promotes a delayed job by the clock of the worker
  -- that looks, and an API host's clock may run fast or slow.
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if ARGV[4] == 'answer' and now >= expiresAt then return {'EXPIRED'} end
  if ARGV[4] == 'expired' and ARGV[9] == 'wait' then
    local left = expiresAt - now - (tonumber(ARGV[10]) or 0)
    if left > 0 then return {'NOT_YET', tostring(left)} end
  end
end
redis.call('HSET', KEYS[1], 'response', ARGV[2], 'outcome', ARGV[4])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
redis.call('ZREM', KEYS[2], ARGV[1])
return {'OK', request}
