/**
 * The Lua scripts behind `reserve`, `add` and `read` (the hold scripts are in lua-hold-scripts.ts
 * and share the helpers below). A script runs atomically in Redis: no other command interleaves,
 * which is what makes admission exact across replicas. Each script first reads and checks every
 * key, and only then writes, because Redis does not roll back writes made before a script error:
 * an invalid stored value or an overflow must abort before anything changed.
 *
 * memory-keyspace.ts implements the same steps in the same order; keep the two in sync.
 *
 * Errors are returned as `COUNTERS_<KIND> <1-based entry index> <key>` so the client can name the
 * key (by index when it knows the entries, else from the key as seen here, with the prefix).
 *
 * Numbers handed to redis.call are always formatted with '%d' or passed through as the client's
 * strings: Lua would print 2^50 as "1.1258999068426e+15".
 */

/** ARGV values per entry: amount, limit ('' = none), ttlMs ('' = keep), bucketMs, buckets ('' = plain), tag. */
export const ENTRY_STRIDE = 6;

/**
 * Helpers shared by every script. ARGV[1] is always the caller's clock (nowMs), which picks the
 * current bucket of sliding windows.
 */
export const LUA_HELPERS = `
local MAX = 9007199254740991
local NOW = tonumber(ARGV[1])
local STRIDE = ${ENTRY_STRIDE}

local function fail(kind, index, key)
  return redis.error_reply('COUNTERS_' .. kind .. ' ' .. index .. ' ' .. key)
end

local function inRange(value) return value <= MAX and value >= -MAX end

-- An exact integer as the stores write them (no '+', no leading zeros), or nil.
local function exactInteger(raw)
  if raw ~= '0' and not string.match(raw, '^%-?[1-9]%d*$') then return nil end
  local value = tonumber(raw)
  if not inRange(value) then return nil end
  return value
end

-- The window of a sliding key at clock now; nil for a plain counter. Live buckets: index >= oldest.
local function windowAt(bucketMs, buckets, now)
  if bucketMs == nil then return nil end
  local current = math.floor(now / bucketMs)
  return { oldest = current - buckets + 1, field = string.format('%d', current) }
end

-- Read a key: { exists, value, fields, stale }, or nil and an error kind. A plain counter is a
-- string (missing = 0). A sliding window is a hash bucket index -> integer: its value is the sum of
-- the live buckets, exists = it has one; stale buckets are listed for the next write to delete.
local function readKey(key, window)
  if window == nil then
    local raw = redis.pcall('GET', key)
    if type(raw) == 'table' then return nil, 'WRONG_KIND' end
    if not raw then return { exists = false, value = 0 } end
    local value = exactInteger(raw)
    if value == nil then return nil, 'NOT_INTEGER' end
    return { exists = true, value = value }
  end
  local flat = redis.pcall('HGETALL', key)
  if flat.err then return nil, 'WRONG_KIND' end
  local state = { exists = false, value = 0, fields = {}, stale = {} }
  for j = 1, #flat, 2 do
    local index, value = exactInteger(flat[j]), exactInteger(flat[j + 1])
    if index == nil or value == nil then return nil, 'NOT_INTEGER' end
    if index < window.oldest then
      state.stale[#state.stale + 1] = flat[j]
    else
      state.exists = true
      state.value = state.value + value
      state.fields[flat[j]] = value
    end
  end
  if not inRange(state.value) then return nil, 'OVERFLOW' end
  return state
end

-- The key's value (and the bucket's, sliding) after adding amount; nil when either leaves the range.
local function nextValues(state, field, amount)
  local value = state.value + amount
  if not inRange(value) then return nil end
  if field == nil then return value end
  local bucket = (state.fields[field] or 0) + amount
  if not inRange(bucket) then return nil end
  return value, bucket
end

local function advance(state, field, value, bucket)
  state.value = value
  if field ~= nil then state.fields[field] = bucket end
end

-- Add amount (a decimal string) to the key: INCRBY, or HINCRBY the bucket and then delete the
-- stale buckets (in this order so the hash, never empty, keeps its expiry). Expiry is kept.
local function writeKey(key, state, field, amount)
  if field == nil then
    redis.call('INCRBY', key, amount)
    return
  end
  redis.call('HINCRBY', key, field, amount)
  for j = 1, #state.stale, 1000 do
    redis.call('HDEL', key, unpack(state.stale, j, math.min(j + 999, #state.stale)))
  end
  state.stale = {}
end

-- Entry i (key KEYS[i]) from its STRIDE arguments after ARGV[base].
local function entryAt(i, base)
  local o = base + (i - 1) * STRIDE
  local e = { key = KEYS[i], amountArg = ARGV[o + 1], amount = tonumber(ARGV[o + 1]), limit = ARGV[o + 2],
    ttl = ARGV[o + 3], tag = ARGV[o + 6] }
  if ARGV[o + 4] ~= '' then
    e.bucketMs, e.buckets = ARGV[o + 4], ARGV[o + 5]
    e.window = windowAt(tonumber(e.bucketMs), tonumber(e.buckets), NOW)
    e.field = e.window.field
  end
  return e
end

local function entriesFrom(count, base)
  local entries = {}
  for i = 1, count do entries[i] = entryAt(i, base) end
  return entries
end

-- Read every distinct key once, before any check or write: states by key, or nil and an error reply.
local function readEntries(entries)
  local states = {}
  for i, e in ipairs(entries) do
    if states[e.key] == nil then
      local state, kind = readKey(e.key, e.window)
      if state == nil then return nil, fail(kind, i, e.key) end
      states[e.key] = state
    end
  end
  return states
end

local function valuesOf(entries, states)
  local values = {}
  for i, e in ipairs(entries) do values[i] = states[e.key].value end
  return values
end

-- All-or-nothing: check every entry against the running values, then write them all.
-- Returns 1, newValues | 0, failedIndex (0-based), storedValues | nil, errorReply.
local function reserveEntries(entries)
  local states, err = readEntries(entries)
  if states == nil then return nil, err end
  local stored = valuesOf(entries, states)
  local values = {}
  for i, e in ipairs(entries) do
    local state = states[e.key]
    local value, bucket = nextValues(state, e.field, e.amount)
    if value == nil then return nil, fail('OVERFLOW', i, e.key) end
    if e.limit ~= '' then
      local limit = tonumber(e.limit)
      -- amount 0 is a pure check: an exhausted scope (value == limit) is refused.
      if value > limit or (e.amount == 0 and value >= limit) then return 0, i - 1, stored end
    end
    advance(state, e.field, value, bucket)
    values[i] = value
  end
  for _, e in ipairs(entries) do
    writeKey(e.key, states[e.key], e.field, e.amountArg)
    if e.ttl ~= '' then redis.call('PEXPIRE', e.key, e.ttl) end
  end
  return 1, values
end

-- A reply: head, then the values as decimal strings (ioredis 6 parses integer replies near 2^53
-- inexactly: it computes n * 10 + digit before subtracting '0').
local function reply(head, values)
  for _, value in ipairs(values) do head[#head + 1] = string.format('%d', value) end
  return head
end
`;

/**
 * reserve and add (add passes no limits). KEYS: the counters. ARGV: nowMs, then STRIDE per key.
 * Returns {1, newValue...} or {0, failedIndex (0-based), storedValue...}; values as decimal strings.
 */
export const RESERVE_LUA = `${LUA_HELPERS}
local admitted, a, b = reserveEntries(entriesFrom(#KEYS, 1))
if admitted == nil then return a end
if admitted == 0 then return reply({ 0, a }, b) end
return reply({ 1 }, a)
`;

/** get and read. KEYS: the counters. ARGV: nowMs, then STRIDE per key. Returns the values (strings). */
export const READ_LUA = `${LUA_HELPERS}
local entries = entriesFrom(#KEYS, 1)
local states, err = readEntries(entries)
if states == nil then return err end
return reply({}, valuesOf(entries, states))
`;
