build-dev/obj/guest/sys_misc.o: src/guest/sys_misc.c src/guest/syscall.h \
 src/guest/os.h src/guest/cpu.h src/guest/mem.h src/isa/isa.h \
 src/isa/alpha.def
src/guest/syscall.h:
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
