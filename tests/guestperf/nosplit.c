/* A perf buffer mapping may not be split or grown (Linux's
 * perf_mmap_may_split and VM_DONTEXPAND, as the kernel selftest
 * perf_events/mmap.c checks them; here with Alpha's 8 KB pages): partial
 * munmap, mprotect, mremap shrink and MAP_FIXED over a part (anonymous or
 * another ring) are EINVAL,
 * mremap growth EFAULT; unmapping past its end, moving all of it
 * (MREMAP_FIXED) and unmapping all of it succeed, and the moved ring still
 * reads its user page. */
#include "gp.h"
#include <sys/mman.h>

#define PAGE 8192

int main(void)
{
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.disabled = 1;
  int fd = (int)gp_open(&a, 0, -1, -1, 0);
  CHECK("open", fd >= 0, "fd %d errno %d", fd, errno);
  size_t size = 3 * PAGE;   /* the user page and 2 data pages */
  char *region = mmap(NULL, 8 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK("region", region != MAP_FAILED, "errno %d", errno);
  char *rb = mmap(region, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  CHECK("map", rb == region, "rb %p errno %d", (void *)rb, errno);
  CHECK_ERR("munmap-head", munmap(rb, PAGE), EINVAL);
  CHECK_ERR("munmap-middle", munmap(rb + PAGE, PAGE), EINVAL);
  CHECK_ERR("munmap-tail", munmap(rb + size - PAGE, PAGE), EINVAL);
  CHECK_ERR("mprotect-part", mprotect(rb + PAGE, PAGE, PROT_READ), EINVAL);
  CHECK("mremap-shrink", mremap(rb, size, PAGE, MREMAP_MAYMOVE) == MAP_FAILED && errno == EINVAL,
        "errno %d", errno);
  CHECK("mremap-grow", mremap(rb, size, size + PAGE, MREMAP_MAYMOVE) == MAP_FAILED && errno == EFAULT,
        "errno %d", errno);
  CHECK("mmap-fixed-over-part",
        mmap(rb + PAGE, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED &&
            errno == EINVAL, "errno %d", errno);
  /* The same through the perf mmap path: another event's ring mapped
   * MAP_FIXED over part of this one. */
  int fd2 = (int)gp_open(&a, 0, -1, -1, 0);
  CHECK("ring-fixed-over-part",
        fd2 >= 0 && mmap(rb + PAGE, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd2, 0) == MAP_FAILED &&
            errno == EINVAL, "fd %d errno %d", fd2, errno);
  close(fd2);
  /* Shrinking a range that starts inside and ends past the buffer only
   * unmaps what lies past its end (the PROT_NONE rest of the region). */
  CHECK("mremap-past-end", mremap(rb + size - PAGE, 2 * PAGE, PAGE, MREMAP_MAYMOVE) == rb + size - PAGE,
        "errno %d", errno);
  char *tmp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK("mremap-part-fixed", mremap(rb + PAGE, size - PAGE, size - PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, tmp) ==
        MAP_FAILED && errno == EINVAL, "errno %d", errno);
  char *moved = mremap(rb, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, tmp);
  CHECK("mremap-whole-fixed", moved == tmp, "%p errno %d", (void *)moved, errno);
  struct perf_event_mmap_page *up = (struct perf_event_mmap_page *)tmp;
  CHECK("moved-user-page", up->data_size == 2 * PAGE && up->data_offset == PAGE, "data_size %llu offset %llu",
        (unsigned long long)up->data_size, (unsigned long long)up->data_offset);
  CHECK("munmap-whole", munmap(tmp, size) == 0, "errno %d", errno);
  CHECK("close", close(fd) == 0, "errno %d", errno);
  return gp_done();
}
