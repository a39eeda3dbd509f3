/* Starting a guest program for a command, with the same error messages and
 * exit statuses everywhere (127: no such file, 126: cannot be run), and the
 * progress line of long runs. */
#ifndef TOOLS_SPAWN_H
#define TOOLS_SPAWN_H
#include "machine/machine.h"
#include <stdbool.h>
#include <stdio.h>

/* Creates a machine and loads argv[0] with argv and the host environment.
 * Returns it, or NULL after printing "profileme CMD: cannot run PROG: why"
 * with *rc set to the command's exit status. */
struct machine *tool_spawn(const char *cmd, const struct machine_opts *mo, int argc,
                           char *const *argv, int *rc);
/* Parses --cpus: 1..MACHINE_MAX_CPUS. Returns 0, or 2 (the exit status)
 * after a message. */
int tool_parse_cpus(const char *cmd, const char *arg, int *ncpus);
/* Parses --ram SIZE (64M..64G, whole frames) into *bytes; prints the error
 * and returns 2 when it is not one. */
int tool_parse_ram(const char *cmd, const char *arg, uint64_t *bytes);
/* Parses a CPU list ("0,2", "0-3") of a machine of ncpus CPUs into out
 * (at most MACHINE_MAX_CPUS, ascending, no repeats). Returns 0, or 2 after a
 * message. */
int tool_parse_cpu_list(const char *cmd, const char *arg, int ncpus, int *out, int *n);
/* Who runs the workload, the same two options in every command that runs
 * a program (run, stat, record, and mem record through record):
 * --privileged runs it as root (CAP_PERFMON and every capability), --user as
 * a normal user. Without either, the command's default from one table
 * (spawn.c). */
bool tool_privileged_default(const char *cmd);
/* Prints the --privileged, --user and --uarch lines of cmd's --help, the
 * option names indented by indent and their text from column col. */
void tool_machine_usage(FILE *f, const char *cmd, int indent, int col);
/* --uarch ARG: KEY=VALUE[,...], or @FILE with one KEY=VALUE per line (or
 * several, comma separated; # starts a comment), applied to *c in order.
 * Returns 0, or 2 (the exit status) after a message saying why. */
int tool_parse_uarch(const char *cmd, const char *arg, struct ev67_config *c);
/* After the options: checks *c as a whole (ev67_config_check) and points
 * mo->uarch at it, or leaves it NULL when *c is the HRM's default. Returns
 * 0, or 2 after a message. */
int tool_uarch_finish(const char *cmd, const struct ev67_config *c, struct machine_opts *mo);
/* Parses --sampled[=U,W[,P]] (arg NULL: the defaults) into *p. Returns
 * 0, or 2 after a message. */
int tool_parse_sampled(const char *cmd, const char *arg, struct smp_params *p);
/* The command's exit status for a guest wait status (128+signal when killed). */
int tool_exit_status(int status);

/* A progress line on stderr for runs longer than two seconds: guest
 * instructions and time, a count (samples written), host MIPS. Only on a
 * terminal: never in a pipe or a log. */
struct progress {
  const char *cmd;
  bool on, shown;
  double t0;
  uint64_t last;               /* half-seconds at the last update */
};
void progress_start(struct progress *p, const char *cmd, bool wanted);
/* Updates the line (at most twice a second); what may be NULL. */
void progress_update(struct progress *p, struct machine *m, const char *what, uint64_t n);
/* Clears the line. */
void progress_end(struct progress *p);
#endif
