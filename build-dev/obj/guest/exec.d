build-dev/obj/guest/exec.o: src/guest/exec.c src/guest/cpu.h \
 src/guest/mem.h src/isa/isa.h src/isa/alpha.def src/isa/intops.h \
 src/isa/fp.h src/guest/exec_loop.h
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
src/isa/intops.h:
src/isa/fp.h:
src/guest/exec_loop.h:
