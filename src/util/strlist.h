/* Comma-separated option values (perf's --comms, --pids, -s ...): split
 * in place, then asked whether a name or number is in them. */
#ifndef UTIL_STRLIST_H
#define UTIL_STRLIST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Splits a comma-separated option value in place; returns the count (at most max). */
size_t split_list(char *s, char **out, size_t max);
/* Whether name is in the list (or the list is empty). */
bool in_list(char *const *list, size_t n, const char *name);
/* Whether a pid or tid, as perf prints it (signed), is in the list (or the list is empty). */
bool in_num_list(char *const *list, size_t n, uint32_t v);

#endif
