-- Numbers: string.format of floats in every conversion, integer/float
-- conversions and overflow wrap, math library results, tostring round
-- trips, and a deterministic pseudo-random stream (math.random seeded).
local vals = {0.0, -0.0, 1.0, 0.1, 1 / 3, 2 / 3, 123456.789, 1e-5, 1e21, 1.7976931348623157e308,
  2.2250738585072014e-308, 4.9406564584124654e-324, math.pi, math.exp(1), 2^53 + 1, -1.5e-10}
for _, v in ipairs(vals) do
  print(string.format("%g|%e|%.3f|%a|%.17g|%14.6e|%-12.4g|", v, v, v, v, v, v, v), tostring(v))
end
print(string.format("%.0f %.0f %.0f %.0f", 0.5, 1.5, 2.5, -0.5))
print(string.format("%.30f", 0.1))
print(string.format("%5.2f%%", 99.555), string.format("%+.3e", 12345.6789))
print(1e15, 1e16, 2^63, -2^63, 123456789012, 0.1 + 0.2, 100 / 3, 1e300 * 1e10, -1e300 * 1e10)
print(math.maxinteger + 1 == math.mininteger, math.maxinteger * 2, math.mininteger // -1)
print(7 // 2, 7.0 // 2, 7 % 3, -7 % 3, 7 % -3, 2^10, 10 / 2, 3 | 5, 3 & 5, 3 ~ 5, ~0, 1 << 63, 1 << 64, -1 >> 1)
print(math.tointeger(3.0), math.tointeger(3.5), math.tointeger("8"), 3 == 3.0, math.ult(1, -1))
print(math.floor(3.7), math.ceil(3.2), math.floor(-3.7), math.fmod(7, 3), math.fmod(-7, 3), math.modf(-3.75))
print(math.sqrt(2), math.sin(1), math.cos(1), math.tan(1), math.asin(0.5), math.acos(0.5), math.atan(1, 2))
print(math.exp(10), math.log(10), math.log(8, 2), math.log(100, 10), math.abs(-2^63))
print(math.max(3, 7.5, -1), math.min(3, 7.5, -1), math.huge, -math.huge, math.pi)
print(tonumber("0x7fffffffffffffff"), tonumber("0xffffffffffffffff"), tonumber("9223372036854775808"),
  tonumber("1e500"), tonumber("0x1p4"), tonumber(".5"), tonumber("5."), tonumber("0x.8"))
print(string.format("%d", -0), 0.0 == -0.0, 1 / 0.0 > 0, 1 / -0.0 < 0)
local bad = 0
for i = 1, 2000 do
  local v = (i * 7919 % 1000003) / 997 * 10 ^ (i % 40 - 20)
  if tonumber(string.format("%.17g", v)) ~= v then bad = bad + 1 end
  if tonumber(tostring(v)) ~= v and tostring(v):find("e") == nil and #tostring(v) < 14 then bad = bad + 1 end
end
print("round trip failures", bad)
math.randomseed(42)
local r = {}
for i = 1, 8 do r[i] = math.random(1, 1000) end
print("random", table.concat(r, " "), math.random() < 1, math.random(0) ~= nil)
local s = 0
for i = 1, 100000 do s = s + math.random(100) end
print("random sum", s)
