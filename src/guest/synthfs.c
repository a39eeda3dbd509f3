/* The synthesized /proc and /sys files; see synthfs.h. */
#include "guest/synthfs.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct synthfs {
  char root[PATH_MAX];       /* the host directory standing for the guest's / */
  size_t rootlen;
  char **paths;              /* guest paths redirected, with what is under them */
  size_t npaths;
};

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st; (void)flag; (void)ftw;
  remove(p);
  return 0;
}

/* Removes the trees of runs that were killed before they could (their
 * names carry the pid of the process that made them, now gone). */
static void sweep_stale(const char *tmp)
{
  DIR *d = opendir(tmp);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    if (strncmp(e->d_name, "profileme-sys.", 14)) continue;
    long pid = strtol(e->d_name + 14, &end, 10);
    if (end == e->d_name + 14 || *end != '.' || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", tmp, e->d_name) < sizeof path)
      nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  }
  closedir(d);
}

static struct synthfs *synthfs_create(void)
{
  struct synthfs *fs = calloc(1, sizeof *fs);
  if (!fs) return NULL;
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  sweep_stale(tmp);
  snprintf(fs->root, sizeof fs->root, "%s/profileme-sys.%ld.XXXXXX", tmp, (long)getpid());
  if (!mkdtemp(fs->root)) { free(fs); return NULL; }
  fs->rootlen = strlen(fs->root);
  return fs;
}

void synthfs_destroy(struct synthfs *fs)
{
  if (!fs) return;
  nftw(fs->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  for (size_t i = 0; i < fs->npaths; i++) free(fs->paths[i]);
  free(fs->paths);
  free(fs);
}

/* Makes the host directories of guest path g's parents (g has the root
 * prefix already in h). */
static int make_parents(char *h, size_t from)
{
  for (char *s = h + from + 1; (s = strchr(s, '/')); s++) {
    *s = 0;
    int r = mkdir(h, 0755);
    *s = '/';
    if (r && errno != EEXIST) return -errno;
  }
  return 0;
}

static int write_file(const char *h, const char *content, unsigned mode)
{
  int fd = open(h, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -errno;
  size_t n = strlen(content);
  ssize_t w = write(fd, content, n);
  int e = w == (ssize_t)n ? 0 : (w < 0 ? -errno : -EIO);
  if (!e && fchmod(fd, mode ? mode : 0444)) e = -errno;
  close(fd);
  return e;
}

/* Whether normalized guest path g is an entry or under one. */
static bool covered(const struct synthfs *fs, const char *g)
{
  for (size_t i = 0; i < fs->npaths; i++) {
    size_t l = strlen(fs->paths[i]);
    if (!strncmp(g, fs->paths[i], l) && (g[l] == 0 || g[l] == '/')) return true;
  }
  return false;
}

static int add_one(struct synthfs *fs, const struct synth_file *f)
{
  char h[PATH_MAX];
  if (f->path[0] != '/' || (size_t)snprintf(h, sizeof h, "%s%s", fs->root, f->path) >= sizeof h)
    return -EINVAL;
  int e = make_parents(h, fs->rootlen);
  if (e) return e;
  if (f->content) e = write_file(h, f->content, f->mode);
  else if (f->link) e = symlink(f->link, h) && errno != EEXIST ? -errno : 0;
  else e = mkdir(h, 0755) && errno != EEXIST ? -errno : 0;
  if (e) return e;
  if (covered(fs, f->path)) return 0;   /* a directory above owns it already */
  char **p = realloc(fs->paths, (fs->npaths + 1) * sizeof *p);
  if (!p) return -ENOMEM;
  fs->paths = p;
  if (!(p[fs->npaths] = strdup(f->path))) return -ENOMEM;
  fs->npaths++;
  return 0;
}

struct synthfs *synthfs_get(struct os *m)
{
  if (!m->synth) m->synth = synthfs_create();
  return m->synth;
}

int os_synth_files(struct os *m, const struct synth_file *f, size_t n)
{
  if (!synthfs_get(m)) return errno ? -errno : -ENOMEM;
  for (size_t i = 0; i < n; i++) {
    int e = add_one(m->synth, &f[i]);
    if (e) return e;
  }
  return 0;
}

/* Writes path p with "//", "/./" and "/../" resolved lexically into out
 * (PATH_MAX bytes); the guest's paths to /proc and /sys name no symlinks
 * before the synthesized part. Returns false if it does not fit. */
bool synthfs_normalize(const char *p, char *out)
{
  size_t n = 0;
  out[0] = 0;
  while (*p) {
    while (*p == '/') p++;
    size_t l = strcspn(p, "/");
    if (!l) break;
    if (l == 2 && p[0] == '.' && p[1] == '.') {
      while (n && out[--n] != '/') {}
      out[n] = 0;
    } else if (l != 1 || p[0] != '.') {
      if (n + 1 + l >= PATH_MAX) return false;
      out[n++] = '/';
      memcpy(out + n, p, l);
      n += l;
      out[n] = 0;
    }
    p += l;
  }
  if (!n) strcpy(out, "/");
  return true;
}

bool synthfs_map(const struct synthfs *fs, const char *gpath, char *buf, size_t len)
{
  /* (most paths name neither, and need no normalizing) */
  if (!fs || gpath[0] != '/' || (!strstr(gpath, "/sys") && !strstr(gpath, "/proc"))) return false;
  char g[PATH_MAX];
  if (!synthfs_normalize(gpath, g)) return false;
  return covered(fs, g) && (size_t)snprintf(buf, len, "%s%s", fs->root, g) < len;
}

bool synthfs_owns(const struct synthfs *fs, const char *hpath)
{
  return fs && !strncmp(hpath, fs->root, fs->rootlen) &&
         (hpath[fs->rootlen] == 0 || hpath[fs->rootlen] == '/');
}

const char *synthfs_guest_path(const struct synthfs *fs, const char *hpath)
{
  if (!synthfs_owns(fs, hpath)) return NULL;
  return hpath[fs->rootlen] ? hpath + fs->rootlen : "/";
}

/* ---- entries written at lookup (guest/procfs.c) ---- */

static int host_of(const struct synthfs *fs, const char *gpath, char *h)
{
  if (gpath[0] != '/' || (size_t)snprintf(h, PATH_MAX, "%s%s", fs->root, gpath) >= PATH_MAX)
    return -ENAMETOOLONG;
  return make_parents(h, fs->rootlen);
}

int synthfs_put(struct synthfs *fs, const char *gpath, const char *content, size_t n, unsigned mode,
                char *hpath)
{
  int e = host_of(fs, gpath, hpath);
  if (e) return e;
  /* Written beside and renamed over: the old inode stays with its readers. */
  char tmp[PATH_MAX + 16];
  snprintf(tmp, sizeof tmp, "%s.new~", hpath);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -errno;
  for (size_t done = 0; done < n;) {
    ssize_t w = write(fd, content + done, n - done);
    if (w <= 0) { e = w < 0 ? -errno : -EIO; break; }
    done += (size_t)w;
  }
  if (!e && fchmod(fd, mode ? mode : 0444)) e = -errno;
  close(fd);
  if (!e && rename(tmp, hpath)) e = -errno;
  if (e) unlink(tmp);
  return e;
}

int synthfs_put_link(struct synthfs *fs, const char *gpath, const char *target, char *hpath)
{
  int e = host_of(fs, gpath, hpath);
  if (e) return e;
  char old[PATH_MAX];
  ssize_t n = readlink(hpath, old, sizeof old - 1);
  if (n >= 0) {
    old[n] = 0;
    if (!strcmp(old, target)) return 0;
  }
  char tmp[PATH_MAX + 16];
  snprintf(tmp, sizeof tmp, "%s.new~", hpath);
  unlink(tmp);
  if (symlink(target, tmp)) return -errno;
  if (rename(tmp, hpath)) {
    e = -errno;
    if (e == -EISDIR || e == -ENOTEMPTY || e == -EEXIST) {   /* a directory stood there */
      nftw(hpath, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
      e = rename(tmp, hpath) ? -errno : 0;
    }
    if (e) unlink(tmp);
  }
  return e;
}

int synthfs_put_dir(struct synthfs *fs, const char *gpath, char *hpath)
{
  int e = host_of(fs, gpath, hpath);
  if (e) return e;
  struct stat st;
  if (lstat(hpath, &st) == 0 && !S_ISDIR(st.st_mode)) unlink(hpath);
  return mkdir(hpath, 0755) && errno != EEXIST ? -errno : 0;
}

static int cmp_dirent(const void *a, const void *b)
{
  return strcmp(((const struct synth_dirent *)a)->name, ((const struct synth_dirent *)b)->name);
}

int synthfs_sync_dir(struct synthfs *fs, const char *gpath, const struct synth_dirent *e, size_t n,
                     char *hpath)
{
  int err = synthfs_put_dir(fs, gpath, hpath);
  if (err) return err;
  struct synth_dirent *sorted = malloc((n ? n : 1) * sizeof *sorted);
  if (!sorted) return -ENOMEM;
  memcpy(sorted, e, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_dirent);
  char p[PATH_MAX];
  /* What is there and should not be. */
  DIR *d = opendir(hpath);
  if (!d) { free(sorted); return -errno; }
  for (struct dirent *de; (de = readdir(d));) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    struct synth_dirent key = { .name = de->d_name };
    const struct synth_dirent *w = bsearch(&key, sorted, n, sizeof *sorted, cmp_dirent);
    char want = w ? w->type : 0;
    char have = de->d_type == DT_DIR ? 'd' : de->d_type == DT_LNK ? 'l' : de->d_type == DT_REG ? 'f' : '?';
    if (want == have) continue;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", hpath, de->d_name) >= sizeof p) continue;
    if (have == 'd') nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    else unlink(p);
  }
  closedir(d);
  /* What should be there. */
  for (size_t i = 0; i < n && !err; i++) {
    if ((size_t)snprintf(p, sizeof p, "%s/%s", hpath, sorted[i].name) >= sizeof p) continue;
    if (sorted[i].type == 'd') {
      if (mkdir(p, 0755) && errno != EEXIST) err = -errno;
    } else if (sorted[i].type == 'l') {
      char old[PATH_MAX];
      ssize_t k = readlink(p, old, sizeof old - 1);
      if (k >= 0) old[k] = 0;
      if (k < 0 || strcmp(old, sorted[i].target)) {
        unlink(p);
        if (symlink(sorted[i].target, p)) err = -errno;
      }
    } else {
      int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
      if (fd >= 0) close(fd);
      else if (errno != EACCES) err = -errno;   /* (there already, read-only) */
    }
  }
  free(sorted);
  return err;
}
