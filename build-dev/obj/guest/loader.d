build-dev/obj/guest/loader.o: src/guest/loader.c src/guest/loader.h \
 src/guest/mem.h src/guest/cpu.h src/isa/isa.h src/isa/alpha.def \
 src/util/err.h
src/guest/loader.h:
src/guest/mem.h:
src/guest/cpu.h:
src/isa/isa.h:
src/isa/alpha.def:
src/util/err.h:
