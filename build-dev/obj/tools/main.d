build-dev/obj/tools/main.o: src/tools/main.c src/tools/commands.h
src/tools/commands.h:
