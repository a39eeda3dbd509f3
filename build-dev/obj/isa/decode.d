build-dev/obj/isa/decode.o: src/isa/decode.c src/isa/isa.h \
 src/isa/alpha.def
src/isa/isa.h:
src/isa/alpha.def:
