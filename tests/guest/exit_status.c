/* Exit status: atexit handlers run in reverse order of registration, stdio
 * buffers are flushed by exit, and the process exits with status 3. Its
 * stderr is compared too. */
//@ stderr
#include <stdio.h>
#include <stdlib.h>

/* atexit handlers: each prints its name. */
static void first(void) { printf("atexit: first registered, runs last\n"); }
static void second(void) { printf("atexit: second registered, runs first\n"); }

int main(void)
{
    atexit(first);
    atexit(second);
    fprintf(stderr, "to stderr, unbuffered\n");
    printf("buffered output before exit(3)");
    exit(3);
}
