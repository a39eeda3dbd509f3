build-dev/obj/isa/fp.o: src/isa/fp.c src/isa/fp.h
src/isa/fp.h:
