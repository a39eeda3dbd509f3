build-dev/obj/pmu/ev67_pmu.o: src/pmu/ev67_pmu.c src/pmu/ev67_pmu.h \
 src/uarch/uarch.h src/isa/isa.h src/isa/alpha.def src/guest/cpu.h \
 src/guest/mem.h
src/pmu/ev67_pmu.h:
src/uarch/uarch.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/cpu.h:
src/guest/mem.h:
