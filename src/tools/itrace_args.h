/* --itrace for the commands that read samples (script, report, annotate):
 * a file with an instruction trace is turned into one of ordinary samples, as
 * `inject --itrace` writes it (cmd_inject.c), and the command reads that. */
#ifndef TOOLS_ITRACE_ARGS_H
#define TOOLS_ITRACE_ARGS_H
#include "analysis/itrace_session.h"
#include <stdbool.h>

/* For --itrace in script/report/annotate: when argv has --itrace[=OPTS], or
 * auto_opts is not NULL and the input has a trace, converts the input (-i
 * FILE, --input[=]FILE, default perf.data) into a temporary file of samples
 * (as inject --itrace does) and rewrites argv (a new array, to free) to read
 * it, without the --itrace option. *tmp gets the path to remove after the
 * command (NULL when nothing was done). Returns 0, or an exit status after a
 * message on stderr. */
int itrace_args_inject(const char *cmd, int *argc, char ***argv, char **tmp, const char *auto_opts);
/* Whether the file holds an AUXTRACE_INFO record (an instruction trace). */
bool itrace_file_has_trace(const char *path);

/* Converts in into out, the trace as ordinary samples (none when o->set is
 * false: a copy), with arch as the arch header when it is not NULL. */
int itrace_inject_file(const char *in, const char *out, const struct itrace_opts *o, const char *arch,
                       bool quiet);

#endif
