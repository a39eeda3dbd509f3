/* tool_spawn and tool_exit_status; see spawn.h. */
#include "tools/spawn.h"
#include "util/err.h"
#include <stdio.h>

extern char **environ;

struct machine *tool_spawn(const char *cmd, const struct machine_opts *mo, int argc,
                           char *const *argv, int *rc)
{
  struct machine *m = machine_create(mo);
  if (!m) {
    fprintf(stderr, "profileme %s: out of memory\n", cmd);
    *rc = 1;
    return NULL;
  }
  char detail[512] = "";
  int err = machine_spawn(m, argv[0], argc, argv, environ, detail, sizeof detail);
  if (!err) return m;
  if (err == PM_EINTERP)
    fprintf(stderr, "profileme %s: cannot run %s: %s (is --sysroot %s right?)\n", cmd, argv[0],
            detail, mo->sysroot ? mo->sysroot : "");
  else
    fprintf(stderr, "profileme %s: cannot run %s: %s\n", cmd, argv[0], pm_strerror(err));
  machine_destroy(m);
  *rc = err == PM_ENOENT ? 127 : 126;
  return NULL;
}

int tool_exit_status(int status)
{
  return status & 0x7f ? 128 + sig_to_host(status & 0x7f) : (status >> 8) & 0xff;
}
