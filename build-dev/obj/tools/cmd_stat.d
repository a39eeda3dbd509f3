build-dev/obj/tools/cmd_stat.o: src/tools/cmd_stat.c src/tools/commands.h \
 src/tools/events.h src/tools/spawn.h src/machine/machine.h \
 src/guest/os.h src/guest/cpu.h src/guest/mem.h src/isa/isa.h \
 src/isa/alpha.def src/kernel/perf.h src/guest/phys.h src/uarch/ev67.h \
 src/uarch/uarch.h src/kernel/sim_pmu.h src/perfdata/pm_raw.h \
 src/util/err.h
src/tools/commands.h:
src/tools/events.h:
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
src/kernel/sim_pmu.h:
src/perfdata/pm_raw.h:
src/util/err.h:
