-- Counts the words of stdin (skipping each line's leading number) and prints
-- "count word" for every word, most frequent first, then by word.
local count = {}
for line in io.lines() do
  for w in line:gmatch("%a+") do count[w] = (count[w] or 0) + 1 end
end
local words = {}
for w in pairs(count) do words[#words + 1] = w end
table.sort(words, function(a, b)
  if count[a] ~= count[b] then return count[a] > count[b] end
  return a < b
end)
for _, w in ipairs(words) do io.write(count[w], " ", w, "\n") end
