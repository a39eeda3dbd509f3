build-dev/obj/guest/syscall.o: src/guest/syscall.c src/guest/syscall.h \
 src/guest/os.h src/guest/cpu.h src/guest/mem.h src/isa/isa.h \
 src/isa/alpha.def
src/guest/syscall.h:
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
