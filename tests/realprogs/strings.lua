-- String library: find/match/gmatch/gsub with patterns and captures,
-- format, rep, byte/char, upper/lower, reverse, string.pack/unpack, utf8.
local s = "The quick brown fox jumps over the lazy dog"
print(#s, s:upper(), s:lower():reverse())
print(s:find("fox"), s:find("o", 20, true), s:match("(%a+) dog$"))
local words = {}
for w in s:gmatch("%a+") do words[#words + 1] = w end
print(#words, table.concat(words, ","))
print((s:gsub("%w+", function(w) return w:sub(1, 1):upper() .. w:sub(2) end)))
print(s:gsub("o", "0", 2))
print(("key=val; k2=v2; k3=v3"):gsub("(%w+)=(%w+)", "%2=%1"))
print(string.format("[%10s][%-10s][%.3s]", "right", "left", "truncate"))
print(string.format("%d %5d %-5d| %x %X %o %c %q", 42, -7, 3, 255, 255, 8, 65, 'a "quoted"\n string'))
print(("ab"):rep(5, "-"), ("x"):rep(0), ("abc"):byte(1, -1))
print(string.char(72, 101, 108, 108, 111), ("%d items"):format(3))
print(("  trim me  "):match("^%s*(.-)%s*$") .. "|")
print(("2024-01-15"):match("(%d+)-(%d+)-(%d+)"))
print(("a,b,,c"):find(",,"), ("[test]"):find("[", 1, true))
local packed = string.pack("<i4 i8 d z", -2, 1 << 40, 3.5, "zstr")
print(#packed, string.unpack("<i4 i8 d z", packed))
print(string.pack(">I2", 0x1234):byte(1, 2))
print(utf8.char(72, 228, 8364, 128512), utf8.len("häll€"), utf8.codepoint("€"))
for p, c in utf8.codes("aé€") do io.write(p, ":", c, " ") end
print()
local parts = {}
for i = 1, 2000 do parts[i] = string.format("%04d", (i * 7919) % 10000) end
local big = table.concat(parts, ";")
local sum = 0
for n in big:gmatch("%d+") do sum = sum + tonumber(n) end
print(#big, sum, big:sub(1, 30), big:sub(-14))
print(tostring(nil), tostring(true), tonumber("0x1F"), tonumber("  12  "), tonumber("1e2"), tonumber("z", 36))
print(("%s|%s"):format(1e15, 2^63), math.type(1), math.type(1.0), math.type("1"))
print(string.format("%5.1s|", "abc"), #string.format("%099d", 7))
