import { LUA_HELPERS } from "./lua-scripts.js";

/**
 * The scripts behind `hashAddOnce` and `hashGetAll`: plain hashes of integer fields, counted at
 * most once per marker (metric state shared by exporter replicas). Same discipline as
 * lua-scripts.ts: read and check everything, then write, so a bad stored value or an overflow
 * aborts before anything changed. memory-hashes.ts mirrors every step; keep the two in sync.
 */

/** ARGV values per hashAddOnce entry: field, amount, ttlMs ('' = keep). */
export const HASH_ENTRY_STRIDE = 3;

/**
 * KEYS: the marker's hash, then one key per entry. ARGV: nowMs (unused, the helpers' convention),
 * marker field, marker ttlMs, then HASH_ENTRY_STRIDE per entry. Returns 1 (counted) or 0 (the
 * marker was already there: nothing changed). Error indexes are 1-based into KEYS.
 */
export const HASH_ADD_ONCE_LUA = `${LUA_HELPERS}
local marker, markerField, markerTtl = KEYS[1], ARGV[2], ARGV[3]
local seen = redis.pcall('HEXISTS', marker, markerField)
if type(seen) == 'table' then return fail('WRONG_KIND', 1, marker) end
if seen == 1 then return 0 end
local n = #KEYS - 1
local entries = {}
local running = {}
for i = 1, n do
  local o = 3 + (i - 1) * ${HASH_ENTRY_STRIDE}
  local e = { key = KEYS[i + 1], field = ARGV[o + 1], amountArg = ARGV[o + 2], ttl = ARGV[o + 3] }
  local id = e.key .. '\\0' .. e.field
  local current = running[id]
  if current == nil then
    local raw = redis.pcall('HGET', e.key, e.field)
    if type(raw) == 'table' then return fail('WRONG_KIND', i + 1, e.key) end
    current = 0
    if raw then
      current = exactInteger(raw)
      if current == nil then return fail('NOT_INTEGER', i + 1, e.key) end
    end
  end
  local value = current + tonumber(e.amountArg)
  if not inRange(value) then return fail('OVERFLOW', i + 1, e.key) end
  running[id] = value
  entries[i] = e
end
redis.call('HSETNX', marker, markerField, '1')
for _, e in ipairs(entries) do
  redis.call('HINCRBY', e.key, e.field, e.amountArg)
  if e.ttl ~= '' then redis.call('PEXPIRE', e.key, e.ttl) end
end
redis.call('PEXPIRE', marker, markerTtl)
return 1
`;

/** KEYS: the hash. Returns HGETALL's flat list (field, value as a decimal string, ...). */
export const HASH_GET_ALL_LUA = `${LUA_HELPERS}
local flat = redis.pcall('HGETALL', KEYS[1])
if flat.err then return fail('WRONG_KIND', 1, KEYS[1]) end
for j = 2, #flat, 2 do
  if exactInteger(flat[j]) == nil then return fail('NOT_INTEGER', 1, KEYS[1]) end
end
return flat
`;
