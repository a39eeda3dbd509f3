/* perf_copy_attr's size rules (perf_attr.h). The ceiling is PAGE_SIZE, as in
 * Linux: the modelled kernel's, Alpha's 8 KB pages. */
#include "guest/perf_attr.h"
#include "guest/mem.h"
#include <errno.h>
#include <string.h>

#define ATTR_SIZE_MAX GUEST_PAGE_SIZE

int perf_copy_attr(const struct perf_uattr *u, struct perf_event_attr *attr)
{
  uint32_t size;
  memset(attr, 0, sizeof *attr);
  if (u->get(u->ctx, offsetof(struct perf_event_attr, size), &size, 4)) return -EFAULT;
  if (!size) size = PERF_ATTR_SIZE_VER0;
  if (size < PERF_ATTR_SIZE_VER0 || size > ATTR_SIZE_MAX) goto err_size;
  if (size > sizeof *attr) {
    /* the whole tail is read first: an unreadable one is EFAULT, even
     * past a non-zero byte */
    uint8_t tail[ATTR_SIZE_MAX];
    size_t n = size - sizeof *attr;
    if (u->get(u->ctx, sizeof *attr, tail, n)) return -EFAULT;
    for (size_t i = 0; i < n; i++) if (tail[i]) goto err_size;
  }
  if (u->get(u->ctx, 0, attr, size < sizeof *attr ? size : sizeof *attr)) return -EFAULT;
  attr->size = size < sizeof *attr ? size : (uint32_t)sizeof *attr;
  return 0;
err_size:
  if (u->put_size) u->put_size(u->ctx, (uint32_t)sizeof *attr);
  return -E2BIG;
}
