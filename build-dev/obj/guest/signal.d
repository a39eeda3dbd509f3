build-dev/obj/guest/signal.o: src/guest/signal.c src/guest/os.h \
 src/guest/cpu.h src/guest/mem.h src/isa/isa.h src/isa/alpha.def \
 src/guest/syscall.h
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/syscall.h:
