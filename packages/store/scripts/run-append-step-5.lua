--[[
  Appends to a run's step log and rewrites its small head, fenced by the run job's BullMQ lock.
  Only the items from the given indexes on are sent: an item already stored at its index is
  overwritten (a message the run changed, such as a tool message that approval responses joined),
  later ones are pushed, and a list longer than the run's is trimmed (a fresh start under the same
  id). Bytes written depend on the new items only, never on how long the run is. Once the run is
  finished, every key of the run gets its time to live together.

  KEYS[1] the run's head (the checkpoint): P:run.<runId>
  KEYS[2] the run job's BullMQ lock: P:agent-runs:<runId>:lock (KEYS[1] again when unfenced)
  KEYS[3] the run's tool-result journal: P:run.<runId>:tool-results
  KEYS[4] the run's messages: P:run.<runId>:messages
  KEYS[5] the run's step records: P:run.<runId>:steps
  ARGV[1] head JSON
  ARGV[2] lock token of the writing attempt ('' for an unfenced write)
  ARGV[3] time to live of a finished run, in seconds (0 while the run is not finished)
  ARGV[4] index of the first message sent
  ARGV[5] the run's number of messages
  ARGV[6] index of the first step record sent
  ARGV[7] the run's number of step records
  ARGV[8..] the messages sent, then the step records sent (JSON each)

  Returns 1 when written, 0 when the lock is no longer this attempt's, -1 when a first index is
  past the end of its list (items before it were never stored: nothing is written).
]]
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
local lists = {
  { key = KEYS[4], first = tonumber(ARGV[4]), total = tonumber(ARGV[5]) },
  { key = KEYS[5], first = tonumber(ARGV[6]), total = tonumber(ARGV[7]) },
}
for _, list in ipairs(lists) do
  list.stored = redis.call('LLEN', list.key)
  if list.first > list.stored then return -1 end
end
local at = 8
for _, list in ipairs(lists) do
  for index = list.first, list.total - 1 do
    if index < list.stored then
      redis.call('LSET', list.key, index, ARGV[at])
    else
      redis.call('RPUSH', list.key, ARGV[at])
    end
    at = at + 1
  end
  if list.total == 0 then
    redis.call('DEL', list.key)
  elseif list.stored > list.total then
    redis.call('LTRIM', list.key, 0, list.total - 1)
  end
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
  redis.call('EXPIRE', KEYS[3], ttl)
  redis.call('EXPIRE', KEYS[4], ttl)
  redis.call('EXPIRE', KEYS[5], ttl)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
