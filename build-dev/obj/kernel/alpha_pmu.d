build-dev/obj/kernel/alpha_pmu.o: src/kernel/alpha_pmu.c \
 src/kernel/alpha_pmu.h src/kernel/perf.h src/guest/phys.h \
 src/pmu/ev67_pmu.h src/uarch/uarch.h src/isa/isa.h src/isa/alpha.def \
 src/guest/cpu.h src/guest/mem.h src/perfdata/pm_raw.h
src/kernel/alpha_pmu.h:
src/kernel/perf.h:
src/guest/phys.h:
src/pmu/ev67_pmu.h:
src/uarch/uarch.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/cpu.h:
src/guest/mem.h:
src/perfdata/pm_raw.h:
