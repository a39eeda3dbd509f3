build-dev/obj/guest/phys.o: src/guest/phys.c src/guest/phys.h
src/guest/phys.h:
