build-dev/obj/uarch/config.o: src/uarch/config.c src/uarch/uarch.h \
 src/isa/isa.h src/isa/alpha.def src/guest/cpu.h src/guest/mem.h
src/uarch/uarch.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/cpu.h:
src/guest/mem.h:
