build-dev/obj/kernel/sim_pmu.o: src/kernel/sim_pmu.c src/kernel/sim_pmu.h \
 src/kernel/perf.h src/guest/phys.h src/uarch/ev67.h src/uarch/uarch.h \
 src/isa/isa.h src/isa/alpha.def src/guest/cpu.h src/guest/mem.h
src/kernel/sim_pmu.h:
src/kernel/perf.h:
src/guest/phys.h:
src/uarch/ev67.h:
src/uarch/uarch.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/cpu.h:
src/guest/mem.h:
