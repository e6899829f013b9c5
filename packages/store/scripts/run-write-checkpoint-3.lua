--[[
  Writes a run's checkpoint, fenced by the run job's BullMQ lock. Once the run is finished, the
  checkpoint and its tool-result journal get their time to live together.

  KEYS[1] the checkpoint: P:run.<runId>
  KEYS[2] the run job's BullMQ lock: P:agent-runs:<runId>:lock (KEYS[1] again when unfenced)
  KEYS[3] the run's tool-result journal: P:run.<runId>:tool-results
  ARGV[1] checkpoint JSON
  ARGV[2] lock token of the writing attempt ('' for an unfenced write)
  ARGV[3] time to live of a finished run, in seconds (0 while the run is not finished)

  Returns 1 when written, 0 when the lock is no longer this attempt's.
]]
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
  redis.call('EXPIRE', KEYS[3], ttl)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
