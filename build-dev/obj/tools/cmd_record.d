build-dev/obj/tools/cmd_record.o: src/tools/cmd_record.c \
 src/tools/commands.h src/tools/events.h src/tools/spawn.h \
 src/machine/machine.h src/guest/os.h src/guest/cpu.h src/guest/mem.h \
 src/isa/isa.h src/isa/alpha.def src/kernel/perf.h src/guest/phys.h \
 src/uarch/ev67.h src/uarch/uarch.h src/guest/kimage.h \
 src/perfdata/perfdata.h src/util/err.h
src/tools/commands.h:
src/tools/events.h:
src/tools/spawn.h:
src/machine/machine.h:
src/guest/os.h:
src/guest/cpu.h:
src/guest/mem.h:
src/isa/isa.h:
src/isa/alpha.def:
src/kernel/perf.h:
src/guest/phys.h:
src/uarch/ev67.h:
src/uarch/uarch.h:
src/guest/kimage.h:
src/perfdata/perfdata.h:
src/util/err.h:
