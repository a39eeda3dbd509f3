build-dev/obj/tools/session.o: src/tools/session.c src/tools/session.h \
 src/perfdata/perfdata.h src/perfdata/pm_raw.h src/tools/symbols.h \
 src/util/err.h
src/tools/session.h:
src/perfdata/perfdata.h:
src/perfdata/pm_raw.h:
src/tools/symbols.h:
src/util/err.h:
