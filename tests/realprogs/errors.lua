-- Error handling: pcall/xpcall with string and table errors, error levels,
-- tracebacks (first line only), errors from the runtime (arithmetic on nil,
-- calling nil, bad arguments, integer division by zero), tostring of error
-- objects with __tostring, nested pcall, error in __index, assert, and
-- load() of broken code.
local function strip(msg)
  return (tostring(msg):gsub("^[^:]*:%d+: ", ""))
end
print(pcall(error, "plain"))
local okt, et = pcall(error, {code = 42})
print(okt, type(et), et.code)
print(select(2, pcall(error, setmetatable({}, {__tostring = function() return "custom error" end}))))
local ok, e = pcall(function() local t = nil; return t.x end)
print(ok, strip(e))
ok, e = pcall(function() return 1 + {} end)
print(ok, strip(e))
ok, e = pcall(function() local f; f() end)
print(ok, strip(e))
ok, e = pcall(string.rep)
print(ok, strip(e))
ok, e = pcall(function() return 1 // 0 end)
print(ok, strip(e))
print(pcall(function() return 1 / 0, -1 / 0, 0 / 0 ~= 0 / 0 end))
print(pcall(function() return math.tointeger(2^53), 7 // 2, -7 // 2, 7 % -3, -7 % 3, 7.5 % 2 end))
ok, e = pcall(function() error("with level 2", 2) end)
print(ok, strip(e))
ok, e = pcall(function() error("no position", 0) end)
print(ok, e)
print(xpcall(function() error("handled") end, function(m) return "handler got: " .. strip(m) end))
print(xpcall(function(a, b) return a + b end, print, 3, 4))
local tb
xpcall(function() local x = nil; return x.y end, function(m) tb = debug.traceback(strip(m), 1) end)
print((tb:match("^[^\n]*")))
local depth = 0
local function nest(n)
  if n == 0 then error("deep") end
  local ok2, err = pcall(nest, n - 1)
  depth = depth + 1
  error(err, 0)
end
print(pcall(nest, 50), depth)
local t = setmetatable({}, {__index = function(_, k) error("no field " .. k) end})
ok, e = pcall(function() return t.missing end)
print(ok, strip(e))
print(pcall(assert, false, "assert message"))
print(pcall(assert, 1, 2, 3))
print(select("#", pcall(assert, nil)))
local f, err = load("return 1 +")
print(f, strip(err))
f = load("local a, b = ... return a * b")
print(f(6, 7))
print(pcall(load("error('from chunk')", "=chunk")))
local function overflow(n) return 1 + overflow(n + 1) end
ok, e = pcall(overflow, 1)
print("stack overflow caught:", ok, strip(e):match("stack overflow") ~= nil)
ok, e = pcall(string.format, "%d", 1.5)
print(ok, strip(e))
print(string.format("%d", 3.0), math.floor(-3.5), math.ceil(-3.5), math.fmod(-7, 3), math.abs(math.mininteger))
