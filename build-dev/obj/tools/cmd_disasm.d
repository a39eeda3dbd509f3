build-dev/obj/tools/cmd_disasm.o: src/tools/cmd_disasm.c src/isa/disasm.h \
 src/isa/isa.h src/isa/alpha.def src/tools/commands.h src/util/err.h
src/isa/disasm.h:
src/isa/isa.h:
src/isa/alpha.def:
src/tools/commands.h:
src/util/err.h:
