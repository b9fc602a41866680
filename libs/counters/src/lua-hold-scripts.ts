import { LUA_HELPERS } from "./lua-scripts.js";

/**
 * The scripts behind `reserveHold`, `settleHold` and `expireHolds`. Same discipline as
 * lua-scripts.ts (read and check everything, then write; memory-holds.ts mirrors every step).
 *
 * A hold's record is a hash at `counters:hold:<id>` (under the client's keyPrefix):
 *   state   'held' | 'expired'
 *   id      the caller's id (what expireHolds returns)
 *   entries JSON array of { k: key, t: tag, a: amount, m: bucketMs, n: buckets, b: bucket index }
 *           (m, n, b only for sliding windows; numbers as strings: cjson would round them)
 * Its TTL is keepMs. A held hold is also a member of the sorted set `counters:holds:pending`
 * (score expiresAtMs, member the record's key). Keys in the record and the members are stored as the
 * script sees them, i.e. already prefixed: ioredis prefixes KEYS only, never data.
 *
 * Settle deletes the record and expire flips it to 'expired', each inside one script, so for every
 * hold exactly one of them gives its amounts back (or corrects them).
 */

/** Record key of a hold, before the client's keyPrefix. */
export function holdRecordKey(id: string): string {
  return `counters:hold:${id}`;
}

/** The sorted set of held holds by expiresAtMs, before the client's keyPrefix. */
export const PENDING_HOLDS_KEY = "counters:holds:pending";

const HOLD_HELPERS = `${LUA_HELPERS}
-- The entries of a stored record, with their windows at clock now; field = the bucket the hold used.
local function holdEntries(json, now)
  local entries = {}
  for i, h in ipairs(cjson.decode(json)) do
    local e = { key = h.k, tag = h.t, amount = tonumber(h.a) }
    if h.m ~= nil then
      e.window = windowAt(tonumber(h.m), tonumber(h.n), now)
      e.field = h.b
    end
    entries[i] = e
  end
  return entries
end

-- Whether a correction may go to this key: it still exists (is never recreated without its TTL)
-- and, for a sliding window, the hold's bucket is still inside the window.
local function counts(state, e)
  if not state.exists then return false end
  return e.window == nil or tonumber(e.field) >= e.window.oldest
end
`;

/**
 * KEYS: the entries' counters, then the hold's record and the pending set.
 * ARGV: nowMs, id, expiresAtMs, keepMs, then STRIDE per entry.
 * Returns {1, newValue...} | {0, failedIndex, storedValue...} | {2, currentValue...} (replay);
 * values as decimal strings.
 */
export const RESERVE_HOLD_LUA = `${HOLD_HELPERS}
local n = #KEYS - 2
local record, pending = KEYS[n + 1], KEYS[n + 2]
local entries = entriesFrom(n, 4)
if redis.call('EXISTS', record) == 1 then
  local states, err = readEntries(entries)
  if states == nil then return err end
  return reply({ 2 }, valuesOf(entries, states))
end
local admitted, a, b = reserveEntries(entries)
if admitted == nil then return a end
if admitted == 0 then return reply({ 0, a }, b) end
local held = {}
for i, e in ipairs(entries) do
  held[i] = { k = e.key, t = e.tag, a = e.amountArg, m = e.bucketMs, n = e.buckets, b = e.field }
end
redis.call('HSET', record, 'state', 'held', 'id', ARGV[2], 'entries', cjson.encode(held))
redis.call('PEXPIRE', record, ARGV[4])
redis.call('ZADD', pending, ARGV[3], record)
return reply({ 1 }, a)
`;

/**
 * KEYS: the hold's record, the pending set. ARGV: nowMs, then tag, amount pairs.
 * Returns {0} (unknown hold) or {1, value...} (decimal strings).
 */
export const SETTLE_HOLD_LUA = `${HOLD_HELPERS}
local record, pending = KEYS[1], KEYS[2]
local stored = redis.call('HMGET', record, 'state', 'entries')
if not stored[1] then return { 0 } end
local actual = {}
for j = 2, #ARGV, 2 do actual[ARGV[j]] = tonumber(ARGV[j + 1]) end
-- An expired hold already gave its amounts back: the actual usage is added in full.
local held = stored[1] == 'held'
local entries = holdEntries(stored[2], NOW)
local states, err = readEntries(entries)
if states == nil then return err end
local deltas, values = {}, {}
for i, e in ipairs(entries) do
  local state = states[e.key]
  local delta = (actual[e.tag] or 0) - (held and e.amount or 0)
  if delta ~= 0 and counts(state, e) then
    local value, bucket = nextValues(state, e.field, delta)
    if value == nil then return fail('OVERFLOW', i, e.key) end
    advance(state, e.field, value, bucket)
    deltas[i] = delta
  end
  values[i] = state.value
end
for i, e in ipairs(entries) do
  if deltas[i] ~= nil then writeKey(e.key, states[e.key], e.field, string.format('%d', deltas[i])) end
end
redis.call('DEL', record)
redis.call('ZREM', pending, record)
return reply({ 1 }, values)
`;

/**
 * KEYS: the pending set. ARGV: nowMs, max. Returns the ids expired.
 * Each entry is read and given back on its own: a key that no longer holds a usable counter (other
 * kind, not an integer, out of range) is skipped rather than failing the call, so one damaged key
 * cannot stop every replica from expiring holds.
 */
export const EXPIRE_HOLDS_LUA = `${HOLD_HELPERS}
local pending = KEYS[1]
local members = redis.call('ZRANGEBYSCORE', pending, '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local expired = {}
for _, record in ipairs(members) do
  local stored = redis.call('HMGET', record, 'state', 'entries', 'id')
  if stored[1] == 'held' then
    for _, e in ipairs(holdEntries(stored[2], NOW)) do
      local state = readKey(e.key, e.window)
      if e.amount ~= 0 and state ~= nil and counts(state, e) and nextValues(state, e.field, -e.amount) ~= nil then
        writeKey(e.key, state, e.field, string.format('%d', -e.amount))
      end
    end
    redis.call('HSET', record, 'state', 'expired')
    expired[#expired + 1] = stored[3]
  end
  redis.call('ZREM', pending, record)
end
return expired
`;
