/**
 * The two Lua scripts behind `reserve` and `add`. A script runs atomically in Redis: no other
 * command interleaves, which is what makes admission exact across replicas. Each script first reads
 * and checks every key, and only then writes, because Redis does not roll back writes made before a
 * script error: an invalid stored value or an overflow must abort before anything changed.
 *
 * memory-counter-store.ts implements the same steps in the same order; keep the two in sync.
 *
 * Errors are returned as `COUNTERS_<KIND> <1-based key index>` so the client can name the key
 * without knowing the key prefix.
 */

/** Reads KEYS[i] as a counter (missing = 0); nil when it is not an exact integer. */
const READ_COUNTER = `
local MAX = 9007199254740991
local function readCounter(i)
  local raw = redis.call('GET', KEYS[i])
  if not raw then return 0 end
  if raw ~= '0' and not string.match(raw, '^%-?[1-9]%d*$') then return nil end
  local value = tonumber(raw)
  if value > MAX or value < -MAX then return nil end
  return value
end
local stored = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  if stored[key] == nil then
    local value = readCounter(i)
    if value == nil then return redis.error_reply('COUNTERS_NOT_INTEGER ' .. i) end
    stored[key] = value
  end
end
local running = {}
for key, value in pairs(stored) do running[key] = value end
`;

/**
 * KEYS: the counters. ARGV: three per key: amount, limit ('' = none), ttlMs ('' = keep expiry).
 * Returns {1, newValue...} or {0, failedIndex (0-based), storedValue...}.
 */
export const RESERVE_LUA = `${READ_COUNTER}
local failed = 0
for i = 1, #KEYS do
  local key = KEYS[i]
  local amount = tonumber(ARGV[3 * i - 2])
  local nextValue = running[key] + amount
  if nextValue > MAX or nextValue < -MAX then return redis.error_reply('COUNTERS_OVERFLOW ' .. i) end
  local limit = ARGV[3 * i - 1]
  if limit ~= '' then
    limit = tonumber(limit)
    -- amount 0 is a pure check: an exhausted scope (value == limit) is refused.
    if nextValue > limit or (amount == 0 and nextValue >= limit) then
      failed = i
      break
    end
  end
  running[key] = nextValue
end
local result = {}
if failed > 0 then
  result[1] = 0
  result[2] = failed - 1
  for i = 1, #KEYS do result[i + 2] = stored[KEYS[i]] end
  return result
end
result[1] = 1
for i = 1, #KEYS do
  result[i + 1] = redis.call('INCRBY', KEYS[i], ARGV[3 * i - 2])
  if ARGV[3 * i] ~= '' then redis.call('PEXPIRE', KEYS[i], ARGV[3 * i]) end
end
return result
`;

/** KEYS: the counters. ARGV: two per key: amount, ttlMs ('' = keep expiry). Returns the new values. */
export const ADD_LUA = `${READ_COUNTER}
for i = 1, #KEYS do
  local key = KEYS[i]
  local nextValue = running[key] + tonumber(ARGV[2 * i - 1])
  if nextValue > MAX or nextValue < -MAX then return redis.error_reply('COUNTERS_OVERFLOW ' .. i) end
  running[key] = nextValue
end
local result = {}
for i = 1, #KEYS do
  result[i] = redis.call('INCRBY', KEYS[i], ARGV[2 * i - 1])
  if ARGV[2 * i] ~= '' then redis.call('PEXPIRE', KEYS[i], ARGV[2 * i]) end
end
return result
`;
