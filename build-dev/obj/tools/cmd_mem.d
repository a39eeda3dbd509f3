build-dev/obj/tools/cmd_mem.o: src/tools/cmd_mem.c src/tools/commands.h \
 src/tools/session.h src/perfdata/perfdata.h src/perfdata/pm_raw.h \
 src/tools/symbols.h src/util/err.h
src/tools/commands.h:
src/tools/session.h:
src/perfdata/perfdata.h:
src/perfdata/pm_raw.h:
src/tools/symbols.h:
src/util/err.h:
