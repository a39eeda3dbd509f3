build-dev/obj/uarch/memsys.o: src/uarch/memsys.c src/uarch/memsys.h \
 src/uarch/uarch.h src/isa/isa.h src/isa/alpha.def src/guest/cpu.h \
 src/guest/mem.h
src/uarch/memsys.h:
src/uarch/uarch.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/cpu.h:
src/guest/mem.h:
