--[[
  Appends to a run's step log and rewrites its small head, fenced by the run job's BullMQ lock.
  Only the items from the given indexes on are sent: an item already stored at its index is
  overwritten (a message the run changed, such as a tool message that approval responses joined),
  later ones are pushed, and a list longer than the run's is trimmed (a fresh start under the same
  id). Bytes written depend on the new items only, never on how long the run is. Once the run is
  finished, every key of the run gets its time to live together.

  A step only appends, so each list is first pushed its new items in one RPUSH, whose answer (the
  new length) tells whether the list held exactly the items before them; only when it did not are
  the items taken back and written one by one after an LLEN. A list with nothing new is measured
  with LLEN. The run's progress, when given, is written the way BullMQ's `updateProgress` writes it
  (the job hash's `progress` field and a `progress` event on the queue's events stream), in the
  same script as the step it reports. The event is added without a MAXLEN: every event BullMQ adds
  itself (each job's moves, the run's own completion among them) trims the stream to the queue's
  `opts.maxLenEvents`, so reading that setting on every step buys nothing.

  KEYS[1] the run's head (the checkpoint): P:run.<runId>
  KEYS[2] the run job's BullMQ lock: P:agent-runs:<runId>:lock (KEYS[1] again when unfenced)
  KEYS[3] the run's tool-result journal: P:run.<runId>:tool-results
  KEYS[4] the run's messages: P:run.<runId>:messages
  KEYS[5] the run's step records: P:run.<runId>:steps
  KEYS[6] the run job's BullMQ hash: P:agent-runs:<runId> (KEYS[1] again without progress)
  KEYS[7] the run queue's BullMQ events stream: P:agent-runs:events (KEYS[1] again without progress)
  ARGV[1] head JSON
  ARGV[2] lock token of the writing attempt ('' for an unfenced write)
  ARGV[3] time to live of a finished run, in seconds (0 while the run is not finished)
  ARGV[4] index of the first message sent
  ARGV[5] the run's number of messages
  ARGV[6] index of the first step record sent
  ARGV[7] the run's number of step records
  ARGV[8] progress JSON ('' for none)
  ARGV[9] the run job's id (the run id)
  ARGV[10..] the messages sent, then the step records sent (JSON each)

  Returns 1 when written, 0 when the lock is no longer this attempt's, -1 when a first index is
  past the end of its list (items before it were never stored: nothing is written).
]]
local fenced = ARGV[2] ~= ''
if fenced and redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end

-- Lua's unpack is bounded by its stack: push long runs of items in chunks.
local function pushRange(key, from, to)
  local length = 0
  while from <= to do
    local last = math.min(to, from + 4999)
    length = redis.call('RPUSH', key, unpack(ARGV, from, last))
    from = last + 1
  end
  return length
end

-- Cuts a list back to its first `length` items (LTRIM 0 -1 would keep them all).
local function cut(key, length)
  if length == 0 then
    redis.call('DEL', key)
  else
    redis.call('LTRIM', key, 0, length - 1)
  end
end

local at = 10
local lists = {
  { key = KEYS[4], first = tonumber(ARGV[4]), total = tonumber(ARGV[5]) },
  { key = KEYS[5], first = tonumber(ARGV[6]), total = tonumber(ARGV[7]) },
}
for _, list in ipairs(lists) do
  list.from = at
  at = at + list.total - list.first
  list.to = at - 1
  if list.to >= list.from then
    list.stored = pushRange(list.key, list.from, list.to) - (list.to - list.from + 1)
    list.appended = list.stored == list.first
    if not list.appended then cut(list.key, list.stored) end
  else
    list.stored = redis.call('LLEN', list.key)
  end
end
for _, list in ipairs(lists) do
  if list.first > list.stored then
    for _, pushed in ipairs(lists) do
      if pushed.appended then cut(pushed.key, pushed.stored) end
    end
    return -1
  end
end
for _, list in ipairs(lists) do
  if not list.appended then
    local index = list.first
    while index < list.stored and index < list.total do
      redis.call('LSET', list.key, index, ARGV[list.from + index - list.first])
      index = index + 1
    end
    if index < list.total then pushRange(list.key, list.from + index - list.first, list.to) end
    if list.total == 0 then
      redis.call('DEL', list.key)
    elseif list.stored > list.total then
      redis.call('LTRIM', list.key, 0, list.total - 1)
    end
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

-- A held lock means BullMQ has the job active, so its hash exists; unfenced, check as BullMQ does.
if ARGV[8] ~= '' and (fenced or redis.call('EXISTS', KEYS[6]) == 1) then
  redis.call('HSET', KEYS[6], 'progress', ARGV[8])
  redis.call('XADD', KEYS[7], '*', 'event', 'progress', 'jobId', ARGV[9], 'data', ARGV[8])
end
return 1
