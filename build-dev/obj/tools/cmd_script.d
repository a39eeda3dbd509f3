build-dev/obj/tools/cmd_script.o: src/tools/cmd_script.c \
 src/tools/commands.h src/tools/session.h src/perfdata/perfdata.h \
 src/perfdata/pm_raw.h src/tools/symbols.h src/isa/disasm.h src/isa/isa.h \
 src/isa/alpha.def src/pmu/ev67_pmu.h src/uarch/uarch.h src/guest/cpu.h \
 src/guest/mem.h src/util/err.h
src/tools/commands.h:
src/tools/session.h:
src/perfdata/perfdata.h:
src/perfdata/pm_raw.h:
src/tools/symbols.h:
src/isa/disasm.h:
src/isa/isa.h:
src/isa/alpha.def:
src/pmu/ev67_pmu.h:
src/uarch/uarch.h:
src/guest/cpu.h:
src/guest/mem.h:
src/util/err.h:
