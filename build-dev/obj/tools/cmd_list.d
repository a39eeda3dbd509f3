build-dev/obj/tools/cmd_list.o: src/tools/cmd_list.c src/tools/commands.h
src/tools/commands.h:
