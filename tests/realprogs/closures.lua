-- Closures and coroutines: counters sharing upvalues, closures in loops,
-- recursion through upvalues, varargs, generators with coroutine.wrap, a
-- producer/consumer pipeline, coroutine status, yield across pcall, and
-- coroutine.close.
local function counter()
  local n = 0
  return function() n = n + 1; return n end, function() return n end
end
local inc, get = counter()
inc(); inc(); inc()
print("counter", get())

local fns = {}
for i = 1, 5 do fns[i] = function() return i * 10 end end
local out = {}
for i = 1, 5 do out[i] = fns[i]() end
print("loop closures", table.concat(out, " "))

local function memo(f)
  local cache = {}
  return function(n)
    local v = cache[n]
    if v == nil then v = f(n); cache[n] = v end
    return v
  end
end
local fib
fib = memo(function(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end)
print("memo fib(90)", fib(90))

local function va(...)
  local n = select("#", ...)
  local t = {...}
  return n, #t, (select(n > 0 and n or 1, ...))
end
print("varargs", va(), va(1, nil, 3), va(nil, nil))
print("table.pack", table.pack(1, nil, 3).n)

local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i * i) end
  end)
end
local squares = {}
for v in gen(8) do squares[#squares + 1] = v end
print("generator", table.concat(squares, ","))

local function producer()
  return coroutine.create(function()
    for _, w in ipairs({"alpha", "beta", "gamma", "delta"}) do coroutine.yield(w) end
    return "done"
  end)
end
local function filter(src)
  return coroutine.create(function()
    while true do
      local ok, v = coroutine.resume(src)
      if coroutine.status(src) == "dead" then return v end
      coroutine.yield(v:upper() .. #v)
    end
  end)
end
local f = filter(producer())
local got = {}
while true do
  local ok, v = coroutine.resume(f)
  if coroutine.status(f) == "dead" then got[#got + 1] = "ret:" .. tostring(v); break end
  got[#got + 1] = v
end
print("pipeline", table.concat(got, " "))

local co = coroutine.create(function(a, b)
  local c = coroutine.yield(a + b)
  local d, e = coroutine.yield(c * 2)
  return d + e
end)
print("resume", coroutine.resume(co, 1, 2))
print("resume", coroutine.resume(co, 10))
print("resume", coroutine.resume(co, 3, 4))
print("status", coroutine.status(co), coroutine.resume(co))
print("isyieldable main", coroutine.isyieldable())

local co2 = coroutine.create(function()
  local ok, err = pcall(function()
    coroutine.yield("inside pcall")
    error("boom")
  end)
  coroutine.yield("after pcall: " .. tostring(ok) .. " " .. tostring(err):gsub("^.-:%d+: ", ""))
  return "end"
end)
print(coroutine.resume(co2))
print(coroutine.resume(co2))
print(coroutine.resume(co2))
local co3 = coroutine.create(function() coroutine.yield() end)
coroutine.resume(co3)
print("close", coroutine.close(co3), coroutine.status(co3))

-- Many coroutines alive at once.
local cos = {}
for i = 1, 500 do
  cos[i] = coroutine.wrap(function() local s = 0; while true do s = s + i; coroutine.yield(s) end end)
end
local sum = 0
for round = 1, 10 do for i = 1, 500 do sum = sum + cos[i]() end end
print("many coroutines", sum)
