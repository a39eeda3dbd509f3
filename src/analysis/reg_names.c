/* The tool's Alpha register table; see perf_regs.h. */
#include "analysis/reg_names.h"
#include "uapi/perf_regs.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const names[PERF_REG_ALPHA_MAX] = {
  "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
  "r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27", "r28", "gp", "sp", "pc",
};

const char *tool_reg_name(int idx)
{
  return idx >= 0 && idx < PERF_REG_ALPHA_MAX ? names[idx] : "unknown";
}

int tool_parse_regs(const char *list, const char *option, uint64_t *mask, FILE *f)
{
  *mask = 0;
  if (!list || !*list) {
    *mask = PERF_REG_ALPHA_MASK;
    return 0;
  }
  char *copy = strdup(list), *save = NULL;
  if (!copy) return -1;
  int rc = 0;
  for (char *s = strtok_r(copy, ",", &save); s && !rc; s = strtok_r(NULL, ",", &save)) {
    if (!strcmp(s, "?")) {
      fprintf(f, "available registers: ");
      for (int i = 0; i < PERF_REG_ALPHA_MAX; i++)
        if ((PERF_REG_ALPHA_MASK >> i) & 1) fprintf(f, "%s ", names[i]);
      fputc('\n', f);
      rc = 1;
      break;
    }
    int i = 0;
    while (i < PERF_REG_ALPHA_MAX && !(((PERF_REG_ALPHA_MASK >> i) & 1) && !strcasecmp(s, names[i]))) i++;
    if (i == PERF_REG_ALPHA_MAX) {
      fprintf(f, "unknown register %s, check %s option\n", s, option);
      rc = -1;
    } else {
      *mask |= 1ull << i;
    }
  }
  free(copy);
  return rc;
}
