# A build-like workload for GNU make -jN, every job a real Alpha program:
# lua (generating text, counting words, running the tests/realprogs/*.lua
# scripts), bzip2 (compressing and decompressing), and dash running each
# recipe, with pipes between them. The targets depend on each other as a
# build's do (generate -> compress -> decompress -> check; all -> summary).
#   make -f workloads/build.mk -j2 LUA=... BZ2=... SHELL=.../dash
# in an empty directory; no host program runs, and `summary.txt` ends it.
# (BZ2, not BZIP2: make exports command-line variables, and bzip2 takes
# $BZIP2 as options.) LINES sets the size of the generated text; SCRIPTS
# the lua test scripts run as jobs.
MAKEFLAGS += -r
LUA ?= lua
BZ2 ?= bzip2
W := $(dir $(lastword $(MAKEFILE_LIST)))
T := $(W)../tests/realprogs
LINES ?= 1000
SCRIPTS ?= closures strings
WORDS := words1.txt words2.txt words3.txt

all: summary.txt

.SECONDARY:

words%.txt:
	$(LUA) $(W)build/gen.lua $* $(LINES) > $@

%.bz2: %
	$(BZ2) -9 -c $< > $@

%.back: %.bz2
	$(BZ2) -d -c $< > $@

# A pipeline through the shell: count, compress, decompress, keep the top.
freq%.txt: words%.txt
	$(LUA) $(W)build/wordfreq.lua < $< | $(BZ2) -1 | $(BZ2) -d > $@

lua-%.out: $(T)/%.lua
	$(LUA) $< > $@

summary.txt: $(WORDS:%=%.back) $(WORDS:words%.txt=freq%.txt) $(SCRIPTS:%=lua-%.out)
	$(LUA) $(W)build/summary.lua $(WORDS) $^ > $@.tmp
	n=0; while read -r l; do n=$$((n + 1)); echo "$$l"; done < $@.tmp > $@; echo "$$n files" >> $@

clean:
	rm -f words* freq* lua-*.out summary.txt*
