-- Tables: array and hash parts, insert/remove/sort/concat/move/unpack,
-- length with many entries, pairs over a deterministic key set, metatables
-- (__index, __newindex, __call, __eq, __lt, __concat, __len, __close),
-- and the garbage collector with weak tables.
local t = {}
for i = 1, 10000 do t[i] = i * i end
print(#t, t[100], t[#t])
table.insert(t, 1, 0)
table.remove(t, 5)
print(#t, t[1], t[5], table.concat(t, ",", 1, 6))
local words = {"pear", "apple", "fig", "banana", "cherry", "date", "elderberry"}
table.sort(words)
print(table.concat(words, " "))
table.sort(words, function(a, b) return #a < #b or (#a == #b and a < b) end)
print(table.concat(words, " "))
local nums = {}
local x = 12345
for i = 1, 5000 do x = (x * 1103515245 + 12345) % 2147483648; nums[i] = x % 1000 end
table.sort(nums)
print(nums[1], nums[2500], nums[5000])
print(table.unpack({1, 2, 3, nil, 5}, 1, 5))
print(select("#", table.unpack({1, 2, 3})), select(2, "a", "b", "c"))
local moved = table.move({1, 2, 3, 4, 5}, 2, 4, 1, {})
print(table.concat(moved, ","))

local h = {}
for i = 1, 1000 do h["k" .. i] = i end
local keys = {}
for k in pairs(h) do keys[#keys + 1] = k end
table.sort(keys)
local total = 0
for _, k in ipairs(keys) do total = total + h[k] end
print(#keys, keys[1], keys[#keys], total)
h.k500 = nil
local count = 0
for _ in pairs(h) do count = count + 1 end
print(count, next({}), rawlen({1, 2}), rawequal(h, h))

local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
Vec.__add = function(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
Vec.__lt = function(a, b) return a:len2() < b:len2() end
Vec.__tostring = function(v) return "(" .. v.x .. "," .. v.y .. ")" end
Vec.__concat = function(a, b) return tostring(a) .. tostring(b) end
Vec.__len = function(v) return 2 end
Vec.__call = function(v, k) return v.x * k end
function Vec:len2() return self.x * self.x + self.y * self.y end
local a, b = Vec.new(1, 2), Vec.new(3, 4)
print(tostring(a + b), a == Vec.new(1, 2), a < b, a .. b, #a, a(10))

local log = {}
local proxy = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get " .. k; return k:upper() end,
  __newindex = function(tb, k, v) log[#log + 1] = "set " .. k; rawset(tb, k, v * 2) end,
})
print(proxy.abc, proxy.xyz)
proxy.n = 21
print(proxy.n, table.concat(log, "; "))

do
  local closed = {}
  do
    local res <close> = setmetatable({}, {__close = function() closed[#closed + 1] = "closed" end})
    closed[#closed + 1] = "using"
  end
  print(table.concat(closed, " then "))
end

local weak = setmetatable({}, {__mode = "k"})
do
  for i = 1, 100 do weak[{}] = i end
end
collectgarbage()
collectgarbage()
local left = 0
for _ in pairs(weak) do left = left + 1 end
print("weak entries after collect:", left)
local before = collectgarbage("count")
local junk = {}
for i = 1, 100000 do junk[i] = {i, tostring(i)} end
junk = nil
collectgarbage()
print("memory returned:", collectgarbage("count") < before + 1000)
