build-dev/obj/guest/mem.o: src/guest/mem.c src/guest/mem.h src/util/err.h
src/guest/mem.h:
src/util/err.h:
