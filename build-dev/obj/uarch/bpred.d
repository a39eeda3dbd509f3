build-dev/obj/uarch/bpred.o: src/uarch/bpred.c src/uarch/bpred.h \
 src/isa/isa.h src/isa/alpha.def src/uarch/uarch.h src/guest/cpu.h \
 src/guest/mem.h
src/uarch/bpred.h:
src/isa/isa.h:
src/isa/alpha.def:
src/uarch/uarch.h:
src/guest/cpu.h:
src/guest/mem.h:
