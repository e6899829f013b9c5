--[[
  Registers an approval request. Idempotent: a re-run of a crashed worker keeps the first request
  and its expiry.

  KEYS[1] the approval record hash: P:approval.<approvalId>
  KEYS[2] the pending approvals set: P:approvals.pending
  ARGV[1] approval id
  ARGV[2] request JSON
  ARGV[3] expiry, epoch ms

  Returns the stored request JSON.
]]
if redis.call('HSETNX', KEYS[1], 'request', ARGV[2]) == 1 then
  redis.call('HSET', KEYS[1], 'expiresAt', ARGV[3])
  if redis.call('HEXISTS', KEYS[1], 'decision') == 0 then
    redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[1])
  end
end
return redis.call('HGET', KEYS[1], 'request')
