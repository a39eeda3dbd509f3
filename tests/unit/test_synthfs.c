/* The synthesized /proc and /sys tree (guest/synthfs.h): which guest paths
 * it takes over, what the host files hold, and that it is gone with the OS. */
#include "check.h"
#include "guest/synthfs.h"
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int read_host(const char *path, char *buf, size_t len)
{
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = 0;
  return (int)n;
}

/* A tree left by a killed run (named for a pid now gone) is removed by the
 * next machine made in the same TMPDIR; a live run's is kept. */
static void check_sweep(void)
{
  char tmp[] = "/tmp/test_synthfs.XXXXXX", stale[PATH_MAX], live[PATH_MAX];
  if (!mkdtemp(tmp)) { CHECK(0, "mkdtemp"); return; }
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, NULL, 0);
  snprintf(stale, sizeof stale, "%s/profileme-sys.%ld.abcdef", tmp, (long)dead);
  snprintf(live, sizeof live, "%s/profileme-sys.%ld.ghijkl", tmp, (long)getppid());
  mkdir(stale, 0700);
  mkdir(live, 0700);
  char sub[PATH_MAX + 8];
  snprintf(sub, sizeof sub, "%s/sys", stale);
  mkdir(sub, 0755);
  const char *old = getenv("TMPDIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("TMPDIR", tmp, 1);
  struct os_opts oo = { .ncpus = 1 };
  struct os *m = os_create(&oo);
  if (saved) setenv("TMPDIR", saved, 1); else unsetenv("TMPDIR");
  free(saved);
  CHECK(access(stale, F_OK) != 0, "a dead run's tree is swept");
  CHECK(access(live, F_OK) == 0, "a live process's tree is kept");
  os_destroy(m);
  rmdir(live);
  CHECK(rmdir(tmp) == 0, "nothing else is left in TMPDIR");
}

int main(void)
{
  check_sweep();
  struct os_opts oo = { .ncpus = 3 };
  struct os *m = os_create(&oo);
  CHECK(m != NULL, "os_create");
  const struct synth_file f[] = {
    { .path = "/sys/devices/cpu" },
    { .path = "/sys/devices/cpu/type", .content = "4\n" },
    { .path = "/sys/bus/event_source/devices/cpu", .link = "../../../devices/cpu" },
    { .path = "/proc/sys/kernel/perf_event_paranoid", .content = "2\n", .mode = 0644 },
  };
  CHECK(os_synth_files(m, f, sizeof f / sizeof f[0]) == 0, "os_synth_files");
  char h[PATH_MAX], buf[64];
  struct stat st;

  CHECK(synthfs_map(m->synth, "/sys/devices/system/cpu/online", h, sizeof h) &&
        read_host(h, buf, sizeof buf) > 0 && !strcmp(buf, "0-2\n"), "the OS's own cpu list: 0-2 for 3 CPUs");
  CHECK(synthfs_map(m->synth, "/sys/devices/cpu/type", h, sizeof h) && read_host(h, buf, sizeof buf) > 0 &&
        !strcmp(buf, "4\n"), "a file's content");
  CHECK(stat(h, &st) == 0 && (st.st_mode & 0777) == 0444, "a file without a mode is 0444");
  CHECK(synthfs_map(m->synth, "/proc/sys/kernel/perf_event_paranoid", h, sizeof h) && stat(h, &st) == 0 &&
        (st.st_mode & 0777) == 0644, "a sysctl keeps its 0644");
  CHECK(synthfs_map(m->synth, "/sys/bus/event_source/devices/cpu/type", h, sizeof h) &&
        read_host(h, buf, sizeof buf) > 0 && !strcmp(buf, "4\n"), "through the link");
  CHECK(synthfs_map(m->synth, "/sys/devices/cpu/events/nothing", h, sizeof h) && access(h, F_OK) != 0,
        "under an owned directory a missing file is missing (not the host's)");
  CHECK(synthfs_map(m->synth, "//sys/./devices/x/../cpu/type", h, sizeof h) &&
        read_host(h, buf, sizeof buf) > 0 && !strcmp(buf, "4\n"), "//, . and .. are resolved");
  CHECK(!synthfs_map(m->synth, "/sys/devices/cpufreq", h, sizeof h), "a name sharing a prefix is not taken");
  CHECK(!synthfs_map(m->synth, "/sys/devices", h, sizeof h), "the parent directory is the host's");
  CHECK(!synthfs_map(m->synth, "/proc/sys/kernel/pid_max", h, sizeof h), "other sysctls are the host's");
  CHECK(!synthfs_map(m->synth, "/usr/lib/libc.so", h, sizeof h), "other paths are untouched");
  CHECK(!synthfs_map(m->synth, "sys/devices/cpu/type", h, sizeof h), "relative paths are untouched");
  CHECK(synthfs_map(m->synth, "/sys/devices/cpu", h, sizeof h) && synthfs_owns(m->synth, h) &&
        !strcmp(synthfs_guest_path(m->synth, h), "/sys/devices/cpu"), "owns, and the guest path back");
  CHECK(!synthfs_owns(m->synth, "/tmp") && synthfs_guest_path(m->synth, "/tmp") == NULL, "a host path is not");

  char longp[PATH_MAX + 64];
  memset(longp, 'a', sizeof longp - 1);
  longp[sizeof longp - 1] = 0;
  memcpy(longp, "/sys/devices/cpu/", 17);
  CHECK(!synthfs_map(m->synth, longp, h, sizeof h), "an over-long path is not redirected");

  const struct synth_file bad = { .path = "relative", .content = "x" };
  CHECK(os_synth_files(m, &bad, 1) < 0, "a relative entry is refused");

  char root[PATH_MAX];
  synthfs_map(m->synth, "/sys/devices/cpu", h, sizeof h);
  snprintf(root, sizeof root, "%.*s", (int)(strlen(h) - strlen("/sys/devices/cpu")), h);   /* the tree's root */
  CHECK(access(root, F_OK) == 0 && strstr(root, "profileme-sys."), "the tree exists");
  os_destroy(m);
  CHECK(access(root, F_OK) != 0, "the tree is removed with the OS");
  return check_done();
}
