build-dev/obj/tools/cmd_dcpi.o: src/tools/cmd_dcpi.c src/tools/commands.h \
 src/tools/session.h src/perfdata/perfdata.h src/perfdata/pm_raw.h \
 src/tools/symbols.h src/isa/disasm.h src/isa/isa.h src/isa/alpha.def \
 src/util/err.h
src/tools/commands.h:
src/tools/session.h:
src/perfdata/perfdata.h:
src/perfdata/pm_raw.h:
src/tools/symbols.h:
src/isa/disasm.h:
src/isa/isa.h:
src/isa/alpha.def:
src/util/err.h:
