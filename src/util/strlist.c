/* Comma-separated option values; see strlist.h. */
#include "util/strlist.h"
#include <stdio.h>
#include <string.h>

size_t split_list(char *s, char **out, size_t max)
{
  size_t n = 0;
  for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
  return n;
}

bool in_list(char *const *list, size_t n, const char *name)
{
  if (!n) return true;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(list[i], name)) return true;
  return false;
}

bool in_num_list(char *const *list, size_t n, uint32_t v)
{
  char buf[16];
  snprintf(buf, sizeof buf, "%d", (int32_t)v);
  return in_list(list, n, buf);
}
