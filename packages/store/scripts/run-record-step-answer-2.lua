--[[
  Records the model's answer for the run step in flight, before that step's tool calls run, fenced
  by the run job's BullMQ lock: an attempt whose lock lapsed never replaces the answer the run's
  new owner recorded. The answer expires on its own; the checkpoint's keys expire or go with it.

  KEYS[1] the run's step answer: P:run.<runId>:step-answer
  KEYS[2] the run job's BullMQ lock: P:agent-runs:<runId>:lock (KEYS[1] again when unfenced)
  ARGV[1] the answer record JSON
  ARGV[2] lock token of the writing attempt ('' for an unfenced write)
  ARGV[3] time to live, in seconds

  Returns 1 when written, 0 when the lock is no longer this attempt's.
]]
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]))
return 1
