build-dev/obj/kernel/perf.o: src/kernel/perf.c src/kernel/perf.h \
 src/guest/phys.h
src/kernel/perf.h:
src/guest/phys.h:
