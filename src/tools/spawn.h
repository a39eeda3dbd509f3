/* Starting a guest program for a command, with the same error messages and
 * exit statuses everywhere (127: no such file, 126: cannot be run). */
#ifndef TOOLS_SPAWN_H
#define TOOLS_SPAWN_H
#include "guest/kernel.h"

/* Creates a machine and loads argv[0] with argv and the host environment.
 * Returns it, or NULL after printing "profileme CMD: cannot run PROG: why"
 * with *rc set to the command's exit status. */
struct machine *tool_spawn(const char *cmd, const struct machine_opts *mo, int argc,
                           char *const *argv, int *rc);
/* The command's exit status for a guest wait status (128+signal when killed). */
int tool_exit_status(int status);

#endif
