build-dev/obj/tools/cmd_run.o: src/tools/cmd_run.c src/tools/commands.h \
 src/tools/spawn.h src/machine/machine.h src/guest/os.h src/guest/cpu.h \
 src/guest/mem.h src/isa/isa.h src/isa/alpha.def src/kernel/perf.h \
 src/guest/phys.h src/uarch/ev67.h src/uarch/uarch.h src/util/err.h
src/tools/commands.h:
src/tools/spawn.h:
src/machine/machine.h:
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
src/kernel/perf.h:
src/guest/phys.h:
src/uarch/ev67.h:
src/uarch/uarch.h:
src/util/err.h:
