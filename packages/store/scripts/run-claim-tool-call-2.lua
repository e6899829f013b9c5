--[[
  Claims one tool call of a run before it executes, so that it executes at most once. Fenced by
  the run job's BullMQ lock: an attempt whose lock lapsed (a starved or partitioned worker whose
  run was taken over) can never start a tool call. One call id is claimed once per incarnation: an
  entry an earlier run under the same id left behind is replaced, never answered.

  With ARGV[5], the claim is the one exception to "once": the call an earlier attempt parked on a
  question is sent again with that question's answer. The bare claim of this incarnation is then
  replaced by ARGV[2], which names the question, unless it already names it: the call went out
  with that answer before, and a later attempt must find it interrupted, not send it a third time.

  KEYS[1] the run's tool-result journal: P:run.<runId>:tool-results
  KEYS[2] the run job's BullMQ lock: P:agent-runs:<runId>:lock (KEYS[1] again when unfenced)
  ARGV[1] tool call id
  ARGV[2] claim JSON
  ARGV[3] lock token of the claiming attempt ('' for an unfenced claim)
  ARGV[4] run incarnation ('' when unknown)
  ARGV[5] the answered elicitation the call is sent again with ('' for an ordinary claim)

  Returns {'LOST'} without the lock, {'EXISTS', entry JSON} when the call is claimed or recorded
  already, {'CLAIMED'} when this claim was written.
]]
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[3] then return {'LOST'} end
-- A call is nearly always new: claim it in one command, and read what is there only when not.
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then return {'CLAIMED'} end
local existing = redis.call('HGET', KEYS[1], ARGV[1])
local ok, entry = pcall(cjson.decode, existing)
local readable = ok and type(entry) == 'table'
local earlier = ARGV[4] ~= '' and readable and type(entry['incarnation']) == 'string'
  and entry['incarnation'] ~= ARGV[4]
if earlier then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return {'CLAIMED'}
end
local resend = ARGV[5] ~= nil and ARGV[5] ~= '' and readable and entry['ok'] == nil
  and type(entry['claimedBy']) == 'string' and entry['answeredElicitation'] ~= ARGV[5]
if resend then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return {'CLAIMED'}
end
return {'EXISTS', existing}
