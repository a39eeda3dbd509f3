build-dev/obj/tools/events.o: src/tools/events.c src/tools/events.h \
 src/perfdata/pm_raw.h src/kernel/sim_pmu.h src/kernel/perf.h \
 src/guest/phys.h src/uarch/ev67.h src/uarch/uarch.h src/isa/isa.h \
 src/isa/alpha.def src/guest/cpu.h src/guest/mem.h
src/tools/events.h:
src/perfdata/pm_raw.h:
src/kernel/sim_pmu.h:
src/kernel/perf.h:
src/guest/phys.h:
src/uarch/ev67.h:
src/uarch/uarch.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/cpu.h:
src/guest/mem.h:
