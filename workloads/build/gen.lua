-- Writes LINES lines of pseudo-random words to stdout, from seed SEED
-- (a 31-bit LCG, so the text is the same on every machine):
--   lua gen.lua SEED LINES
local seed, lines = tonumber(arg[1]), tonumber(arg[2])
local syl = { "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "zu", "pra", "sto" }
local x = seed
local function rnd(n) x = (x * 1103515245 + 12345) % 2147483648; return x % n end
local out = {}
for i = 1, lines do
  local n = 3 + rnd(8)
  for w = 1, n do
    local word = {}
    for s = 1, 1 + rnd(3) do word[s] = syl[1 + rnd(#syl)] end
    out[w] = table.concat(word)
  end
  io.write(i, " ", table.concat(out, " ", 1, n), "\n")
end
