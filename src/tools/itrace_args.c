/* --itrace for script, report and annotate; see itrace_args.h. */
#include "tools/itrace_args.h"
#include "perfdata/perfdata.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool itrace_file_has_trace(const char *path)
{
  int err;
  char eb[256];
  struct pd_reader *r = pd_reader_open(path, &err, eb, sizeof eb);
  if (!r) return false;
  const struct perf_event_header *h;
  bool found = false;
  for (int i = 0; i < 100000 && !found && pd_reader_next(r, &h, eb, sizeof eb) == 1; i++)
    found = h->type == PD_RECORD_AUXTRACE_INFO || h->type == PD_RECORD_AUXTRACE;
  pd_reader_close(r);
  return found;
}

int itrace_args_inject(const char *cmd, int *argc, char ***argv, char **tmp, const char *auto_opts)
{
  *tmp = NULL;
  int n = *argc, it = -1, inpos = -1;
  const char *input = "perf.data", *opts = NULL;
  for (int i = 1; i < n; i++) {
    const char *a = (*argv)[i];
    if (!strcmp(a, "--")) break;
    if (!strncmp(a, "--itrace", 8) && (a[8] == '\0' || a[8] == '=')) { it = i; opts = a[8] ? a + 9 : NULL; }
    else if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && i + 1 < n) { inpos = i + 1; input = (*argv)[++i]; }
    else if (!strncmp(a, "--input=", 8)) { inpos = i; input = a + 8; }
    else if (!strncmp(a, "-i", 2) && a[2]) { inpos = i; input = a + 2; }
  }
  if (it < 0 && (!auto_opts || !itrace_file_has_trace(input))) return 0;
  if (it < 0) opts = auto_opts;
  struct itrace_opts o;
  char err[256];
  if (itrace_parse_opts(opts, &o, err, sizeof err)) { fprintf(stderr, "profileme %s: %s\n", cmd, err); return 2; }
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/profileme-itrace-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) { fprintf(stderr, "profileme %s: cannot create a temporary file in %s\n", cmd, path); return 1; }
  close(fd);
  if (itrace_inject_file(input, path, &o, NULL, true)) { unlink(path); return 1; }
  char **nv = calloc((size_t)n + 3, sizeof *nv);
  char *p = strdup(path);
  if (!nv || !p) { free(nv); free(p); unlink(path); return 1; }
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (i == 1 && inpos < 0) { nv[k++] = "-i"; nv[k++] = p; }
    if (i == it) continue;
    if (i == inpos) { nv[k++] = (*argv)[i][0] == '-' ? "-i" : p; if ((*argv)[i][0] == '-') nv[k++] = p; continue; }
    nv[k++] = (*argv)[i];
  }
  nv[k] = NULL;
  *argc = k;
  *argv = nv;
  *tmp = p;
  return 0;
}
