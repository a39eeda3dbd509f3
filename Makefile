# profileme build. `make` builds build/profileme; `make test` runs the whole suite;
# `make bench` prints speed figures; SAN=1 builds with ASan+UBSan into build-san/;
# DEBUG=1 builds at -O1 without LTO into build-debug/. SAN=1 and DEBUG=1 define
# PM_DEBUG, which turns on the invariant checks (src/util/assert.h); the
# release build compiles them out.
CC      ?= cc
SAN     ?=
DEBUG   ?=
ifeq ($(SAN),1)
BUILD   ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT      = -O2
DBGFLAGS = -DPM_DEBUG
else ifeq ($(DEBUG),1)
BUILD   ?= build-debug
SANFLAGS =
OPT      = -O1
DBGFLAGS = -DPM_DEBUG
else
BUILD   ?= build
SANFLAGS =
DBGFLAGS =
# The timed machine is a long chain of small calls across layers (core ->
# timing model -> PMU -> tool): link-time optimisation inlines across them
# (docs/performance.md has the figures).
OPT      = -O3 -flto=auto
AR       = gcc-ar
endif
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(SANFLAGS) $(DBGFLAGS) -Isrc
LDFLAGS += $(SANFLAGS) $(filter -O% -flto%,$(CFLAGS))
LDLIBS  += -lm -lelf -ldw

LAYERS  := util isa guest uarch pmu kernel unwind machine perfdata analysis tools
SRCS    := $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))
LIBSRCS := $(filter-out src/tools/main.c,$(SRCS))
OBJS    := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
LIBOBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIBSRCS))
UNIT    := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/*.c))

all: $(BUILD)/profileme

$(BUILD)/profileme: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libprofileme.a: $(LIBOBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libprofileme.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libprofileme.a $(LDFLAGS) $(LDLIBS)

unit: $(UNIT)

# The whole suite: unit tests, guest programs against qemu-alpha, disassembler
# against objdump, real programs. Last line: "N passed, N failed".
test: all unit
	BUILD=$(BUILD) tests/run-all.sh

bench: all
	BUILD=$(BUILD) bench/run.sh

# Fuzzing (libFuzzer + ASan + UBSan, clang): the harnesses compile the sources
# they need directly, into build/fuzz/ whatever SAN says, with the invariant
# checks on (PM_DEBUG). `make fuzz-ci` runs each for FUZZ_TIME seconds
# (default 25) on seeds made on the fly.
FUZZ_CC    ?= clang
FUZZ_FLAGS  = -g -O1 -std=c11 -D_GNU_SOURCE -DPM_DEBUG -Wall -Isrc -fno-omit-frame-pointer \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_ISA   := $(wildcard src/util/*.c src/isa/*.c)
FUZZ_GUEST := $(FUZZ_ISA) $(wildcard src/guest/*.c src/uarch/*.c src/pmu/*.c)
FUZZ_PERFDATA := $(wildcard src/util/*.c src/perfdata/*.c)
FUZZ_ATTR  := $(FUZZ_ISA) $(wildcard src/pmu/*.c src/kernel/*.c) src/guest/phys.c src/guest/perf_attr.c \
              src/tools/events.c
FUZZ_UNWIND := $(wildcard src/util/*.c src/unwind/*.c)
FUZZ_GPERF := $(FUZZ_GUEST) src/kernel/perf.c src/kernel/perf_aux.c src/kernel/perf_regs.c src/machine/guest_perf.c
FUZZ_ITRACE := $(FUZZ_ISA) src/analysis/itrace.c
FUZZ_SYMBOLS := $(FUZZ_PERFDATA) src/guest/kimage.c src/guest/systab.c src/analysis/symbols.c
FUZZ_HDRS  := $(wildcard src/*/*.h src/*/*.def)

fuzz: build/fuzz/fuzz_elf build/fuzz/fuzz_decode build/fuzz/fuzz_perfdata build/fuzz/fuzz_attr \
      build/fuzz/fuzz_unwind build/fuzz/fuzz_guestperf build/fuzz/fuzz_itrace build/fuzz/fuzz_symbols

build/fuzz/fuzz_elf: fuzz/fuzz_elf.c $(FUZZ_GUEST) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_elf.c $(FUZZ_GUEST) -lm -lelf

build/fuzz/fuzz_decode: fuzz/fuzz_decode.c $(FUZZ_ISA) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_decode.c $(FUZZ_ISA) -lm

build/fuzz/fuzz_perfdata: fuzz/fuzz_perfdata.c $(FUZZ_PERFDATA) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_perfdata.c $(FUZZ_PERFDATA) -lelf -lm

build/fuzz/fuzz_attr: fuzz/fuzz_attr.c $(FUZZ_ATTR) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_attr.c $(FUZZ_ATTR) -lm

build/fuzz/fuzz_unwind: fuzz/fuzz_unwind.c $(FUZZ_UNWIND) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_unwind.c $(FUZZ_UNWIND) -lelf

build/fuzz/fuzz_guestperf: fuzz/fuzz_guestperf.c $(FUZZ_GPERF) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_guestperf.c $(FUZZ_GPERF) -lm -lelf

build/fuzz/fuzz_itrace: fuzz/fuzz_itrace.c $(FUZZ_ITRACE) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_itrace.c $(FUZZ_ITRACE) -lm

build/fuzz/fuzz_symbols: fuzz/fuzz_symbols.c $(FUZZ_SYMBOLS) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_symbols.c $(FUZZ_SYMBOLS) -lelf -ldw

fuzz-ci: fuzz
	fuzz/ci.sh

# `make fuzz-long`, by hand (not in CI): each harness until FUZZ_LONG_RUNS
# executions or FUZZ_LONG_TIME seconds, whichever comes first, FUZZ_JOBS at
# a time (default: the number of CPUs); same seeds and report as fuzz-ci.
FUZZ_LONG_RUNS ?= 10000000
FUZZ_LONG_TIME ?= 3600
fuzz-long: fuzz
	FUZZ_RUNS=$(FUZZ_LONG_RUNS) FUZZ_TIME=$(FUZZ_LONG_TIME) FUZZ_JOBS=$${FUZZ_JOBS:-$$(nproc)} fuzz/ci.sh

# The bundled workload (workloads/demo.c), built for Alpha with line tables for
# annotate; `make demo` runs, records and reports it (scripts/demo.sh).
ALPHA_CC ?= alpha-linux-gnu-gcc

build/workloads/%: workloads/%.c
	@mkdir -p $(dir $@)
	$(ALPHA_CC) -O2 -g -Wall -o $@ $<

demo: all build/workloads/demo
	BUILD=$(BUILD) scripts/demo.sh

clean:
	rm -rf build build-san build-debug

-include $(OBJS:.o=.d)
.PHONY: all unit test bench fuzz fuzz-ci fuzz-long demo clean
