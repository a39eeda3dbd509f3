build-dev/obj/guest/kimage.o: src/guest/kimage.c src/guest/kimage.h
src/guest/kimage.h:
