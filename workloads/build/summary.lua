-- Prints one line per file named on the command line: its line and byte
-- counts; then checks that each NAME.back equals NAME (a bzip2 round trip)
-- and exits 1 if one differs.
local function slurp(name)
  local f = assert(io.open(name, "rb"))
  local s = f:read("a")
  f:close()
  return s
end
local bad = 0
for _, name in ipairs(arg) do
  local s = slurp(name)
  local _, lines = s:gsub("\n", "")
  io.write(string.format("%-22s %8d lines %9d bytes\n", name, lines, #s))
  local orig = name:match("^(.*)%.back$")
  if orig and slurp(orig) ~= s then
    io.write(name, ": differs from ", orig, "\n")
    bad = bad + 1
  end
end
os.exit(bad == 0 and 0 or 1)
