build-dev/obj/guest/sys_proc.o: src/guest/sys_proc.c src/guest/syscall.h \
 src/guest/os.h src/guest/cpu.h src/guest/mem.h src/isa/isa.h \
 src/isa/alpha.def src/guest/loader.h src/isa/fp.h
src/guest/syscall.h:
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/loader.h:
src/isa/fp.h:
