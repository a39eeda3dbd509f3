build-dev/obj/tools/symbols.o: src/tools/symbols.c src/tools/symbols.h \
 src/guest/kimage.h src/perfdata/perfdata.h src/util/err.h
src/tools/symbols.h:
src/guest/kimage.h:
src/perfdata/perfdata.h:
src/util/err.h:
