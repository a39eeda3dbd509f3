build-dev/obj/machine/machine.o: src/machine/machine.c \
 src/machine/machine.h src/guest/os.h src/guest/cpu.h src/guest/mem.h \
 src/isa/isa.h src/isa/alpha.def src/kernel/perf.h src/guest/phys.h \
 src/uarch/ev67.h src/uarch/uarch.h src/guest/kimage.h \
 src/kernel/alpha_pmu.h src/pmu/ev67_pmu.h src/kernel/sim_pmu.h \
 src/util/err.h
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
src/guest/kimage.h:
src/kernel/alpha_pmu.h:
src/pmu/ev67_pmu.h:
src/kernel/sim_pmu.h:
src/util/err.h:
