/* Files of the guest's /proc and /sys that the machine synthesizes instead
 * of letting the host's through: the CPUs the guest has
 * (/sys/devices/system/cpu/online), and what the machine's kernel registers
 * (the perf sysctls, the PMUs' sysfs directories). Guest fds are host fds
 * (guest/os.h), so the files are written once into a private host directory
 * tree and guest paths under them are redirected there (sys_path): open,
 * read, stat, getdents, readlink, lseek and mmap then behave as on any file.
 * The tree is removed with the OS. */
#ifndef GUEST_SYNTHFS_H
#define GUEST_SYNTHFS_H
#include <stdbool.h>
#include <stddef.h>
#include "guest/os.h"

/* One entry, by its absolute guest path: a file (content), a symbolic link
 * (link, relative as sysfs writes them) or, with neither, a directory the
 * machine owns entirely: the guest sees only what is added under it, never
 * the host's files of that name. Missing parent directories are made. */
struct synth_file {
  const char *path;
  const char *content;       /* file content as read(2) returns it */
  const char *link;          /* symbolic link target */
  unsigned mode;             /* a file's permission bits; 0 means 0444 (sysfs's) */
};

/* Adds entries to the OS's synthesized tree (created on first use). Guest
 * paths equal to an entry, or under one, resolve into the tree from then on.
 * Returns 0 or a negative errno. */
int os_synth_files(struct os *m, const struct synth_file *f, size_t n);

/* ---- internal to the kernel layer ---- */
struct synthfs;
/* The OS's tree, created on first use (NULL if the host refuses). */
struct synthfs *synthfs_get(struct os *m);
/* Entries written without taking the guest path over (guest/procfs.c
 * decides at each lookup what the path is): each call returns, in hpath
 * (PATH_MAX bytes), the host path standing for absolute guest path gpath,
 * making missing parent directories. synthfs_put writes a file of n bytes
 * with mode (0: 0444) atomically: an fd opened on the previous content
 * keeps it (seq_file's snapshot at open). synthfs_put_link makes gpath a
 * symbolic link to target (replacing what was there), synthfs_put_dir a
 * directory. Return 0 or a negative errno. */
int synthfs_put(struct synthfs *fs, const char *gpath, const char *content, size_t n, unsigned mode,
                char *hpath);
int synthfs_put_link(struct synthfs *fs, const char *gpath, const char *target, char *hpath);
int synthfs_put_dir(struct synthfs *fs, const char *gpath, char *hpath);
/* One entry of a directory synthfs_sync_dir keeps: a name, a type ('d'
 * directory, 'f' empty file, 'l' link to target) */
struct synth_dirent {
  const char *name;
  char type;
  const char *target;
};
/* Makes directory gpath hold exactly these entries (what getdents then
 * lists): those missing are made, others removed with what is under them;
 * existing ones of the right type keep their content. Returns 0 or a
 * negative errno; the host path in hpath. */
int synthfs_sync_dir(struct synthfs *fs, const char *gpath, const struct synth_dirent *e, size_t n,
                     char *hpath);
/* Lexical normalization of an absolute path ("//", "/./", "/../") into out
 * (PATH_MAX bytes); false if it does not fit. */
bool synthfs_normalize(const char *p, char *out);
/* Removes the tree and frees fs (NULL is fine). */
void synthfs_destroy(struct synthfs *fs);
/* If the absolute guest path gpath is synthesized, writes the host path of
 * its file (whether or not it exists) into buf and returns true. */
bool synthfs_map(const struct synthfs *fs, const char *gpath, char *buf, size_t len);
/* True if host path hpath is inside the tree (the guest may not write it). */
bool synthfs_owns(const struct synthfs *fs, const char *hpath);
/* The guest path of host path hpath inside the tree (a pointer into
 * hpath), or NULL if hpath is outside it: what getcwd reports there. */
const char *synthfs_guest_path(const struct synthfs *fs, const char *hpath);

#endif
