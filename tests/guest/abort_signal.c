/* Death by signal: abort() raises SIGABRT; the handler runs and returns,
 * then abort resets it and the process dies of SIGABRT (status 128+6 from
 * the shell). Output written before is flushed by hand, since abort does
 * not flush stdio. The runner compares stdout and the status only: the
 * emulator's and qemu's messages on stderr differ. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Reports the signal, then returns so that abort() goes on. */
static void on_abrt(int sig)
{
    static const char msg[] = "handler saw SIGABRT, returning\n";
    if (sig == SIGABRT)
        write(1, msg, sizeof msg - 1);
}

int main(void)
{
    printf("about to abort\n");
    fflush(stdout);
    signal(SIGABRT, on_abrt);
    abort();
}
