build-dev/obj/perfdata/perfdata.o: src/perfdata/perfdata.c \
 src/perfdata/perfdata.h src/util/err.h
src/perfdata/perfdata.h:
src/util/err.h:
