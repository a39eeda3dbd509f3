build-dev/obj/uarch/ev67.o: src/uarch/ev67.c src/uarch/ev67.h \
 src/uarch/uarch.h src/isa/isa.h src/isa/alpha.def src/guest/cpu.h \
 src/guest/mem.h src/uarch/bpred.h src/uarch/memsys.h
src/uarch/ev67.h:
src/uarch/uarch.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/cpu.h:
src/guest/mem.h:
src/uarch/bpred.h:
src/uarch/memsys.h:
