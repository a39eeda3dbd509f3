build-dev/obj/guest/task.o: src/guest/task.c src/guest/os.h \
 src/guest/cpu.h src/guest/mem.h src/isa/isa.h src/isa/alpha.def \
 src/guest/phys.h src/guest/loader.h src/util/err.h
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
src/guest/phys.h:
src/guest/loader.h:
src/util/err.h:
