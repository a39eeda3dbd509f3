/* tool_spawn, tool_exit_status and the progress line; see spawn.h. */
#include "tools/spawn.h"
#include "guest/phys.h"
#include "util/err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* SOURCE_DATE_EPOCH (reproducible-builds.org's variable: seconds since
 * 1970, decimal), when set, is where the guest's CLOCK_REALTIME starts, so
 * that a program that seeds itself from time() (lua's string hashes) does
 * the same work in two runs. Returns 0, or 2 after a message. */
static int source_date_epoch(const char *cmd, struct os_opts *o)
{
  const char *s = getenv("SOURCE_DATE_EPOCH");
  if (!s || !*s) return 0;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (*end || errno || v < 0 || v > 253402300799LL) {   /* up to 9999-12-31 */
    fprintf(stderr, "profileme %s: SOURCE_DATE_EPOCH must be seconds since 1970, not '%s'\n", cmd, s);
    return 2;
  }
  o->epoch_set = true;
  o->epoch_s = v;
  return 0;
}

struct machine *tool_spawn(const char *cmd, const struct machine_opts *mo, int argc,
                           char *const *argv, int *rc)
{
  struct machine_opts o = *mo;
  if ((*rc = source_date_epoch(cmd, &o.os))) return NULL;
  struct machine *m = machine_create(&o);
  if (!m) {
    fprintf(stderr, "profileme %s: out of memory\n", cmd);
    *rc = 1;
    return NULL;
  }
  char detail[512] = "";
  int err = machine_spawn(m, argc, argv, environ, detail, sizeof detail);
  if (!err) return m;
  if (err == PM_EINTERP)
    fprintf(stderr, "profileme %s: cannot run %s: %s (is --sysroot %s right?)\n", cmd, argv[0],
            detail, mo->os.sysroot ? mo->os.sysroot : "");
  else
    fprintf(stderr, "profileme %s: cannot run %s: %s\n", cmd, argv[0], pm_strerror(err));
  machine_destroy(m);
  *rc = err == PM_ENOENT ? 127 : 126;
  return NULL;
}

int tool_parse_cpus(const char *cmd, const char *arg, int *ncpus)
{
  char *end;
  long v = strtol(arg, &end, 10);
  if (!*arg || *end || v < 1 || v > MACHINE_MAX_CPUS) {
    fprintf(stderr, "profileme %s: --cpus wants a number of CPUs from 1 to %d, not '%s'\n", cmd,
            MACHINE_MAX_CPUS, arg);
    return 2;
  }
  *ncpus = (int)v;
  return 0;
}

int tool_parse_ram(const char *cmd, const char *arg, uint64_t *bytes)
{
  char *end;
  unsigned long long v = strtoull(arg, &end, 10);
  uint64_t unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1ull << 10;
  else if (*end == 'M' || *end == 'm') unit = 1ull << 20;
  else if (*end == 'G' || *end == 'g') unit = 1ull << 30;
  if (unit > 1) end++;
  uint64_t b = (uint64_t)v * unit;
  /* The kernel keeps its 32 MB; the allocator numbers frames in 32 bits. */
  if (!*arg || *end || arg[0] == '-' || v > (64ull << 30) / unit || b < (64ull << 20) ||
      b > (64ull << 30) || b % PHYS_PAGE) {
    fprintf(stderr, "profileme %s: --ram wants a size of whole 8 KB frames from 64M to 64G "
            "(a number with K, M or G), not '%s'\n", cmd, arg);
    return 2;
  }
  *bytes = b;
  return 0;
}

int tool_parse_sampled(const char *cmd, const char *arg, struct smp_params *p)
{
  *p = (struct smp_params){ SMP_DEFAULT_UNIT, SMP_DEFAULT_WARMUP, SMP_DEFAULT_PERIOD };
  if (!arg) return 0;
  uint64_t *field[3] = { &p->unit, &p->warmup, &p->period };
  const char *s = arg;
  for (int i = 0; i < 3 && *s; i++) {
    char *end;
    if (*s < '0' || *s > '9') goto bad;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || (*end && *end != ',') || v > (1ull << 40)) goto bad;
    *field[i] = v;
    s = *end ? end + 1 : end;
    if (*end && !*s) goto bad;
  }
  if (*s) goto bad;
  if (smp_params_check(p)) {
    fprintf(stderr, "profileme %s: --sampled=U,W,P wants a unit U, a warm-up W and a period P above W + U, "
                    "all above 0 (got %llu,%llu,%llu)\n", cmd, (unsigned long long)p->unit,
            (unsigned long long)p->warmup, (unsigned long long)p->period);
    return 2;
  }
  return 0;
bad:
  fprintf(stderr, "profileme %s: --sampled wants U[,W[,P]] (instructions: unit, warm-up, period; default "
                  "%d,%d,%d), not '%s'\n", cmd, SMP_DEFAULT_UNIT, SMP_DEFAULT_WARMUP, SMP_DEFAULT_PERIOD, arg);
  return 2;
}

int tool_parse_cpu_list(const char *cmd, const char *arg, int ncpus, int *out, int *n)
{
  bool want[MACHINE_MAX_CPUS] = { false };
  const char *p = arg;
  while (*p) {
    char *end;
    long lo = strtol(p, &end, 10), hi = lo;
    if (end == p) goto bad;
    if (*end == '-') {
      const char *q = end + 1;
      hi = strtol(q, &end, 10);
      if (end == q) goto bad;
    }
    if (lo < 0 || hi < lo) goto bad;
    if (hi >= ncpus) {
      fprintf(stderr, "profileme %s: CPU %ld is not in the machine: it has %d CPU%s (0-%d; --cpus sets how many)\n",
              cmd, hi, ncpus, ncpus > 1 ? "s" : "", ncpus - 1);
      return 2;
    }
    for (long c = lo; c <= hi; c++) want[c] = true;
    if (*end == ',') end++;
    else if (*end) goto bad;
    p = end;
  }
  *n = 0;
  for (int c = 0; c < ncpus; c++) if (want[c]) out[(*n)++] = c;
  if (*n) return 0;
bad:
  fprintf(stderr, "profileme %s: bad CPU list '%s' (for example 0,1 or 0-1)\n", cmd, arg);
  return 2;
}

/* Who runs the workload when neither --privileged nor --user is given. */
static const struct { const char *cmd; bool privileged; const char *why; } privilege_defaults[] = {
  { "run", false, "a program runs as the user who starts it" },
  { "record", false, "as perf record; ProfileMe separates user and kernel, so at paranoid 2 "
                     "cycles:p becomes cycles:pu and samples user space" },
  { "stat", true, "the EV67's Aggregate counters cannot exclude the kernel, so a normal user at "
                  "paranoid 2 counts no hardware event" },
};

static int privilege_row(const char *cmd)
{
  for (size_t i = 0; i < sizeof privilege_defaults / sizeof privilege_defaults[0]; i++)
    if (!strcmp(privilege_defaults[i].cmd, cmd)) return (int)i;
  return -1;
}

bool tool_privileged_default(const char *cmd)
{
  int i = privilege_row(cmd);
  return i >= 0 && privilege_defaults[i].privileged;
}

/* Prints text from column col, wrapped at 79, the first line after what
 * the caller printed up to column `at`. */
static void usage_text(FILE *f, int at, int col, const char *text)
{
  const char *p = text;
  while (*p) {
    fprintf(f, "%*s", at < col ? col - at : 1, "");
    int room = 79 - col, n = (int)strlen(p);
    if (n > room) {
      n = room;
      while (n > 0 && p[n] != ' ') n--;
      if (!n) n = room;
    }
    fprintf(f, "%.*s\n", n, p);
    p += n;
    while (*p == ' ') p++;
    at = 0;
  }
}

void tool_machine_usage(FILE *f, const char *cmd, int indent, int col)
{
  int i = privilege_row(cmd);
  bool root = i >= 0 && privilege_defaults[i].privileged;
  static const char *const what[2] = { "run the workload as a normal user",
                                       "run the workload as root, with CAP_PERFMON and every capability" };
  static const char *const name[2] = { "--user", "--privileged" };
  for (int k = 1; k >= 0; k--) {
    char text[512];
    int n = snprintf(text, sizeof text, "%s", what[k]);
    if (i >= 0 && root == k)
      snprintf(text + n, sizeof text - (size_t)n, " (the default: %s)", privilege_defaults[i].why);
    int at = fprintf(f, "%*s%s", indent, "", name[k]);
    usage_text(f, at, col, text);
  }
  int at = fprintf(f, "%*s--uarch LIST", indent, "");
  usage_text(f, at, col, "a what-if EV67: change the timing model's parameters, KEY=VALUE[,...] "
             "or @FILE (one per line), repeatable; 'profileme list --uarch' lists them with their "
             "HRM defaults and ranges");
}

int tool_parse_uarch(const char *cmd, const char *arg, struct ev67_config *c)
{
  char why[512];
  if (arg[0] != '@') {
    if (!ev67_config_parse(c, arg, why, sizeof why)) return 0;
    fprintf(stderr, "profileme %s: --uarch %s\n", cmd, why);
    return 2;
  }
  FILE *in = fopen(arg + 1, "r");
  if (!in) {
    fprintf(stderr, "profileme %s: --uarch %s: %s\n", cmd, arg, strerror(errno));
    return 2;
  }
  char line[1024];
  int ln = 0, rc = 0;
  while (!rc && fgets(line, sizeof line, in)) {
    ln++;
    size_t n = strlen(line);
    if (n == sizeof line - 1 && line[n - 1] != '\n') {
      fprintf(stderr, "profileme %s: --uarch %s:%d: line longer than %zu bytes\n", cmd, arg + 1, ln, sizeof line - 2);
      rc = 2;
      break;
    }
    line[strcspn(line, "#")] = 0;
    if (ev67_config_parse(c, line, why, sizeof why)) {
      fprintf(stderr, "profileme %s: --uarch %s:%d: %s\n", cmd, arg + 1, ln, why);
      rc = 2;
    }
  }
  if (!rc && ferror(in)) {
    fprintf(stderr, "profileme %s: --uarch %s: read error\n", cmd, arg);
    rc = 2;
  }
  fclose(in);
  return rc;
}

int tool_uarch_finish(const char *cmd, const struct ev67_config *c, struct machine_opts *mo)
{
  char why[512];
  if (ev67_config_check(c, why, sizeof why)) {
    fprintf(stderr, "profileme %s: --uarch %s\n", cmd, why);
    return 2;
  }
  mo->uarch = ev67_config_format(c, false, why, 1) ? c : NULL;
  return 0;
}

int tool_exit_status(int status)
{
  return status & 0x7f ? 128 + sig_to_host(status & 0x7f) : (status >> 8) & 0xff;
}

static double host_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, const char *cmd, bool wanted)
{
  *p = (struct progress){ .cmd = cmd, .on = wanted && isatty(2), .t0 = host_now() };
}

void progress_update(struct progress *p, struct machine *m, const char *what, uint64_t n)
{
  if (!p->on) return;
  double now = host_now(), dt = now - p->t0;
  if (dt < 2 || (uint64_t)(now * 2) == p->last) return;
  p->last = (uint64_t)(now * 2);
  struct machine_progress mp;
  machine_progress(m, &mp);
  fprintf(stderr, "\r[ profileme %s: %.1f M instructions, %.1f guest ms", p->cmd,
          (double)mp.insns / 1e6, (double)mp.ns / 1e6);
  if (what) fprintf(stderr, ", %llu %s", (unsigned long long)n, what);
  fprintf(stderr, ", %.1f MIPS, %.0f s ]\033[K", (double)mp.insns / dt / 1e6, dt);
  p->shown = true;
}

void progress_end(struct progress *p)
{
  if (p->shown) fprintf(stderr, "\r\033[K");
  p->shown = false;
}
