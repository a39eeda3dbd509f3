/* Sampling through the mmap'd ring from inside the guest: the
 * perf_event_mmap_page as Linux on Alpha fills it, records read between
 * data_tail and data_head (the guest writes data_tail), a small ring that
 * wraps, a full one that loses records (PERF_RECORD_LOST, read_format
 * LOST), PAUSE_OUTPUT, SET_OUTPUT, FD_OUTPUT, and poll/select/epoll at the
 * wakeup watermark. Run at paranoid 1, timed. Oracles: the ABI's record
 * layouts, the loop's address range and known count (2 instructions per
 * iteration): samples = events counted / period. */
#include "gp.h"
#include <poll.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <signal.h>

#define PAGE 8192
#define PERIOD 50021   /* 27 overflows per tick at 2 IPC: under the throttle's 98 */
#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD)

struct sample { struct perf_event_header h; uint64_t ip; uint32_t pid, tid; uint64_t time, id, period; };

static int open_stack_sampler(int disabled, int group, unsigned long flags, uint32_t stack)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.disabled = disabled;
  a.sample_period = PERIOD;
  a.sample_type = SAMPLE_TYPE | (stack ? PERF_SAMPLE_STACK_USER : 0);
  a.sample_stack_user = stack;
  a.read_format = PERF_FORMAT_LOST;
  a.sample_id_all = 1;
  return (int)gp_open(&a, 0, -1, group, flags);
}

static int open_sampler(int disabled, int group, unsigned long flags)
{
  return open_stack_sampler(disabled, group, flags, 0);
}

/* Big records (a 2 KB user stack each): a one-page ring fills in 3. */
#define STACK 2048
#define BIG (sizeof(struct sample) + 16 + STACK)

static uint64_t counted(int fd)
{
  uint64_t v[2] = { 0, 0 };
  read(fd, v, sizeof v);
  return v[0];
}

/* What one pass over the ring found. */
struct scan { uint64_t samples, lost_records, lost, user_in_loop, user, bad, last_time; uint64_t id; };

/* Reads the records between tail and head, wrapping, then frees them. */
static void consume(volatile struct perf_event_mmap_page *u, const uint8_t *data, uint64_t size, struct scan *s,
                    uint64_t lo, uint64_t hi)
{
  uint64_t head = u->data_head;
  __sync_synchronize();
  uint64_t tail = u->data_tail;
  while (tail < head) {
    uint8_t rec[4096];
    struct perf_event_header h;
    for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) & (size - 1)];
    if (h.size < sizeof h || h.size > sizeof rec || h.size % 8) { s->bad++; break; }
    for (size_t i = 0; i < h.size; i++) rec[i] = data[(tail + i) & (size - 1)];
    if (h.type == PERF_RECORD_SAMPLE) {
      struct sample *x = (struct sample *)rec;
      s->samples++;
      if ((h.size != sizeof *x && h.size != BIG) || x->pid != (uint32_t)getpid() || x->tid != (uint32_t)getpid() ||
          x->period != PERIOD || (s->id && x->id != s->id) || x->time < s->last_time)
        s->bad++;
      s->last_time = x->time;
      if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER) {
        s->user++;
        if (x->ip >= lo && x->ip < hi) s->user_in_loop++;
      }
    } else if (h.type == PERF_RECORD_LOST) {
      uint64_t v[2];
      memcpy(v, rec + 8, 16);
      s->lost_records++;
      s->lost += v[1];
      if (s->id && v[0] != s->id) s->bad++;
    }
    tail += h.size;
  }
  __sync_synchronize();
  u->data_tail = tail;
}

/* The loop's code: gp_loop is inlined into run(); its samples land in it. */
static __attribute__((noinline)) void run(uint64_t n) { gp_loop(n); }
static __attribute__((noinline)) void run_end(void) {}

static void *map_ring(int fd, size_t pages, int prot)
{
  void *p = mmap(NULL, (1 + pages) * PAGE, prot, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

static uint64_t lo_pc(void) { return (uint64_t)(uintptr_t)run; }
static uint64_t hi_pc(void) { return (uint64_t)(uintptr_t)run_end; }

static void userpage(void)
{
  int fd = open_sampler(1, -1, 0);
  struct perf_event_mmap_page *u = map_ring(fd, 8, PROT_READ | PROT_WRITE);
  CHECK("ring.mmap", u != NULL, "mmap of 1+8 pages: %s", strerror(errno));
  if (!u) return;
  CHECK("ring.userpage_layout", u->version == 0 && u->compat_version == 0 && u->data_offset == PAGE &&
        u->data_size == 8 * PAGE && u->size == offsetof(struct perf_event_mmap_page, __reserved),
        "version %u compat %u data_offset %llu data_size %llu size %u", u->version, u->compat_version,
        (unsigned long long)u->data_offset, (unsigned long long)u->data_size, u->size);
  CHECK("ring.userpage_caps", u->cap_bit0_is_deprecated && !u->cap_user_rdpmc && !u->cap_user_time &&
        !u->cap_user_time_zero && u->index == 0,
        "caps %#llx index %u (Alpha: no rdpmc, no user time)", (unsigned long long)u->capabilities, u->index);
  CHECK_ERR("ring.mmap_other_size", (long)mmap(NULL, 5 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EINVAL);
  void *again = map_ring(fd, 8, PROT_READ | PROT_WRITE);
  CHECK("ring.mmap_again", again != NULL && ((struct perf_event_mmap_page *)again)->data_size == 8 * PAGE,
        "a second mapping of the same size: %s", strerror(errno));
  /* samples */
  struct scan s = { 0 };
  ioctl(fd, PERF_EVENT_IOC_ID, &s.id);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  run(2500000);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  consume(u, (uint8_t *)u + PAGE, u->data_size, &s, lo_pc(), hi_pc());
  uint64_t count = counted(fd), want = count / PERIOD;
  CHECK("ring.samples", count >= 5000000 && s.samples == want && s.bad == 0 && s.lost == 0,
        "%llu samples for %llu events (want %llu), %llu bad, %llu lost", (unsigned long long)s.samples,
        (unsigned long long)count, (unsigned long long)want, (unsigned long long)s.bad, (unsigned long long)s.lost);
  CHECK("ring.samples_in_loop", s.user >= s.samples * 8 / 10 && s.user_in_loop >= s.user * 9 / 10,
        "%llu of %llu samples in user mode, %llu of them in the loop", (unsigned long long)s.user,
        (unsigned long long)s.samples, (unsigned long long)s.user_in_loop);
  CHECK("ring.userpage_offset", u->offset >= 5000000 - PERIOD && u->time_enabled > 0 && u->time_running == u->time_enabled,
        "offset %lld time_enabled %llu running %llu", (long long)u->offset, (unsigned long long)u->time_enabled,
        (unsigned long long)u->time_running);
  /* the mapping is not inherited (VM_DONTCOPY): a child touching it faults */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit((int)(((volatile struct perf_event_mmap_page *)u)->data_size & 1));
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK("ring.dontcopy", WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "child status %#x", st);
  munmap(again, 9 * PAGE);
  munmap(u, 9 * PAGE);
  close(fd);
}

/* The user page alone (nr_pages 0, as libpfm4's self_count maps it): Linux's
 * perf_mmap accepts it, with data_size 0; the event counts on and its
 * samples go nowhere (ring_buffer_init pauses a ring without data pages). */
static void userpage_only(void)
{
  int fd = open_sampler(1, -1, 0);
  struct perf_event_mmap_page *u = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
  CHECK("ring.userpage_only", u != MAP_FAILED && u->data_offset == PAGE && u->data_size == 0,
        "mmap of the user page alone: %s", u == MAP_FAILED ? strerror(errno) : "wrong layout");
  if (u == MAP_FAILED) { close(fd); return; }
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  run(500000);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  uint64_t count = counted(fd);
  CHECK("ring.userpage_only_counts", count >= 1000000 && u->data_head == 0 && u->time_enabled > 0,
        "count %llu, data_head %llu, time_enabled %llu", (unsigned long long)count,
        (unsigned long long)u->data_head, (unsigned long long)u->time_enabled);
  munmap(u, PAGE);
  close(fd);
}

/* An enabled STACK sampler (its id in *id unless NULL) with a ring of one
 * data page mapped prot, or NULL after a FAIL line for name. */
static struct perf_event_mmap_page *small_ring(const char *name, int prot, int *fd, uint64_t *id)
{
  *fd = open_stack_sampler(1, -1, 0, STACK);
  struct perf_event_mmap_page *u = map_ring(*fd, 1, prot);
  if (!u) { CHECK(name, 0, "mmap of 1+1 pages: %s", strerror(errno)); return NULL; }
  if (id) ioctl(*fd, PERF_EVENT_IOC_ID, id);
  ioctl(*fd, PERF_EVENT_IOC_ENABLE, 0);
  return u;
}

/* A ring of one data page read as it fills: data wraps, nothing lost. */
static void wrap(void)
{
  int fd;
  struct scan s = { 0 };
  struct perf_event_mmap_page *u = small_ring("ring.wrap", PROT_READ | PROT_WRITE, &fd, &s.id);
  if (!u) return;
  for (int i = 0; i < 20; i++) {
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    run(PERIOD);   /* 2 samples of 2 KB: a quarter to a half of the page */
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);   /* reading the ring is not sampled */
    consume(u, (uint8_t *)u + PAGE, PAGE, &s, lo_pc(), hi_pc());
  }
  uint64_t count = counted(fd), want = count / PERIOD;
  CHECK("ring.wrap", u->data_head > 4 * PAGE && s.samples == want && s.bad == 0 &&
        s.lost == 0, "head %llu, %llu samples (want about %llu), %llu bad, %llu lost",
        (unsigned long long)u->data_head, (unsigned long long)s.samples, (unsigned long long)want,
        (unsigned long long)s.bad, (unsigned long long)s.lost);
  munmap(u, 2 * PAGE);
  close(fd);
}

/* A full ring drops records: a LOST record comes before the next one that
 * fits, and read() reports the lost count (PERF_FORMAT_LOST). */
static void lost(void)
{
  int fd;
  struct scan s = { 0 };
  struct perf_event_mmap_page *u = small_ring("ring.lost", PROT_READ | PROT_WRITE, &fd, &s.id);
  if (!u) return;
  run(10 * PERIOD);   /* 20 samples into room for 3 */
  consume(u, (uint8_t *)u + PAGE, PAGE, &s, lo_pc(), hi_pc());
  uint64_t first = s.samples;
  run(PERIOD);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  consume(u, (uint8_t *)u + PAGE, PAGE, &s, lo_pc(), hi_pc());
  uint64_t rl[2] = { 0, 0 };
  read(fd, rl, sizeof rl);
  uint64_t total = rl[0] / PERIOD;
  CHECK("ring.lost_record", first <= PAGE / BIG && s.lost_records == 1 && s.lost > 0 && s.bad == 0,
        "%llu samples before the ring was read, %llu LOST records of %llu", (unsigned long long)first,
        (unsigned long long)s.lost_records, (unsigned long long)s.lost);
  CHECK("ring.lost_accounted", s.samples + s.lost == total,
        "%llu samples + %llu lost, want about %llu", (unsigned long long)s.samples, (unsigned long long)s.lost,
        (unsigned long long)total);
  CHECK("ring.read_lost", rl[1] == s.lost, "read_format LOST %llu, LOST records %llu", (unsigned long long)rl[1],
        (unsigned long long)s.lost);
  /* PAUSE_OUTPUT: nothing written while paused, what comes is lost */
  uint64_t head = u->data_head;
  ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  run(2 * PERIOD);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  uint64_t rl2[2];
  read(fd, rl2, sizeof rl2);
  CHECK("ring.pause", u->data_head == head && rl2[1] > rl[1], "head %llu -> %llu, lost %llu -> %llu while paused",
        (unsigned long long)head, (unsigned long long)u->data_head, (unsigned long long)rl[1],
        (unsigned long long)rl2[1]);
  ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
  munmap(u, 2 * PAGE);
  close(fd);
}

/* A read-only mapping is overwrite mode (rb->overwrite: the kernel does not
 * wait for data_tail): the ring keeps the newest records, none is lost. */
static void overwrite(void)
{
  int fd;
  struct perf_event_mmap_page *u = small_ring("ring.overwrite", PROT_READ, &fd, NULL);
  if (!u) return;
  run(10 * PERIOD);   /* 20 records of 2 KB into one page */
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  uint64_t rl[2] = { 0, 0 }, head = u->data_head;
  read(fd, rl, sizeof rl);
  const uint8_t *data = (const uint8_t *)u + PAGE;
  struct sample last;
  for (size_t i = 0; i < sizeof last; i++) ((uint8_t *)&last)[i] = data[(head - BIG + i) & (PAGE - 1)];
  CHECK("ring.overwrite", head >= 19 * BIG && rl[1] == 0 && last.h.type == PERF_RECORD_SAMPLE && last.h.size == BIG &&
        last.pid == (uint32_t)getpid(), "head %llu, lost %llu, newest record type %u size %u",
        (unsigned long long)head, (unsigned long long)rl[1], last.h.type, last.h.size);
  munmap(u, 2 * PAGE);
  close(fd);
}

/* SET_OUTPUT and FD_OUTPUT: a second event's records in the first's ring. */
static void output(void)
{
  int fd = open_sampler(1, -1, 0);
  struct perf_event_mmap_page *u = map_ring(fd, 8, PROT_READ | PROT_WRITE);
  int fd2 = open_sampler(1, -1, 0);
  int fd3 = open_sampler(1, fd, PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP);
  CHECK("ring.set_output", u && ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd) == 0, "%s", strerror(errno));
  CHECK("ring.fd_output", fd3 >= 0, "FD_OUTPUT to a mapped event: %s", strerror(errno));
  CHECK_ERR("ring.set_output_mapped", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fd2), EINVAL);
  uint64_t id2 = 0, id3 = 0;
  ioctl(fd2, PERF_EVENT_IOC_ID, &id2);
  ioctl(fd3, PERF_EVENT_IOC_ID, &id3);
  ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0);
  ioctl(fd3, PERF_EVENT_IOC_ENABLE, 0);
  /* (several multiplexing turns, whatever the tick's phase at the start) */
  run(400 * PERIOD);
  ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0);
  ioctl(fd3, PERF_EVENT_IOC_DISABLE, 0);
  uint64_t n2 = 0, n3 = 0, other = 0;
  const uint8_t *data = (uint8_t *)u + PAGE;
  for (uint64_t t = 0; u && t < u->data_head;) {
    const struct sample *x = (const struct sample *)(data + t);
    if (x->h.type == PERF_RECORD_SAMPLE) {
      if (x->id == id2) n2++;
      else if (x->id == id3) n3++;
      else other++;
    }
    t += x->h.size;
  }
  /* (both count instructions, which only PCTR0 can: they take turns) */
  CHECK("ring.output_samples", n2 + n3 >= 90 && n2 > 10 && n3 > 10 && other == 0, "%llu samples of SET_OUTPUT's, %llu of FD_OUTPUT's, %llu other",
        (unsigned long long)n2, (unsigned long long)n3, (unsigned long long)other);
  close(fd3);
  close(fd2);
  if (u) munmap(u, 9 * PAGE);
  close(fd);
}

/* Wakeups: the fd is readable once wakeup_watermark bytes are in. */
static void wakeups(void)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.disabled = 1;
  a.sample_period = PERIOD;
  a.sample_type = SAMPLE_TYPE;
  a.watermark = 1;
  a.wakeup_watermark = 2048;
  int fd = (int)gp_open(&a, 0, -1, -1, 0);
  struct perf_event_mmap_page *u = map_ring(fd, 2, PROT_READ | PROT_WRITE);
  struct pollfd p = { .fd = fd, .events = POLLIN };
  CHECK("ring.poll_empty", u && poll(&p, 1, 0) == 0, "poll before any sample: %d revents %#x", poll(&p, 1, 0), p.revents);
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 7 }, got;
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  CHECK("ring.epoll_empty", epoll_wait(ep, &got, 1, 0) == 0, "%s", "epoll_wait found the fd ready");
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  run(10 * PERIOD);   /* 20 samples: 960 bytes, under the watermark */
  CHECK("ring.poll_under_watermark", poll(&p, 1, 0) == 0, "ready with %llu bytes of 2048", (unsigned long long)u->data_head);
  run(30 * PERIOD);   /* 60 more: past it */
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  int r = poll(&p, 1, 0);
  CHECK("ring.poll_watermark", r == 1 && (p.revents & POLLIN), "poll %d revents %#x with %llu bytes", r, p.revents,
        (unsigned long long)u->data_head);
  CHECK("ring.epoll_watermark", epoll_wait(ep, &got, 1, 0) == 1 && got.data.u32 == 7 && (got.events & EPOLLIN),
        "%s", "epoll_wait did not report the fd");
  /* once the consumer caught up, the fd is no longer readable (checked
   * between scheduling rounds: a tick's worth of work later) */
  struct scan sc = { 0 };
  consume(u, (uint8_t *)u + PAGE, 2 * PAGE, &sc, lo_pc(), hi_pc());
  gp_loop(2000000);
  CHECK("ring.poll_consumed", poll(&p, 1, 0) == 0, "still ready after the ring was read (revents %#x)", p.revents);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  run(60 * PERIOD);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  fd_set rs;
  FD_ZERO(&rs);
  FD_SET(fd, &rs);
  struct timeval tv = { 0, 0 };
  CHECK("ring.select_watermark", select(fd + 1, &rs, NULL, NULL, &tv) == 1 && FD_ISSET(fd, &rs), "%s",
        "select did not report the fd");
  close(ep);
  munmap(u, 3 * PAGE);
  close(fd);
}

int main(void)
{
  userpage();
  userpage_only();
  wrap();
  lost();
  overwrite();
  output();
  wakeups();
  return gp_done();
}
