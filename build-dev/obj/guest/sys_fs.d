build-dev/obj/guest/sys_fs.o: src/guest/sys_fs.c src/guest/syscall.h \
 src/guest/os.h src/guest/cpu.h src/guest/mem.h src/isa/isa.h \
 src/isa/alpha.def src/guest/loader.h
src/guest/syscall.h:
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/loader.h:
