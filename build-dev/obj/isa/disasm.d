build-dev/obj/isa/disasm.o: src/isa/disasm.c src/isa/disasm.h \
 src/isa/isa.h src/isa/alpha.def
src/isa/disasm.h:
src/isa/isa.h:
src/isa/alpha.def:
