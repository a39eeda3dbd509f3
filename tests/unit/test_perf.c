/* The perf_events core against Linux's ABI: attribute validation errors,
 * paranoid checks, the SAMPLE layout per sample_type (perf-abi §2.2), the
 * RAW padding rule, the ring-buffer head/tail protocol with a LOST record
 * before the next record that fits, throttling, and a ring of scattered
 * physical frames. A fake PMU drives it. */
#include "check.h"
#include "kernel/perf.h"
#include <errno.h>
#include <string.h>

static uint64_t fake_time;
static struct physmem *ram;   /* where the ring buffers come from */
static uint64_t clock_fn(void *ctx) { (void)ctx; return fake_time; }

static int fake_init(struct perf_event *e) { return e->attr.type == PERF_TYPE_RAW ? 0 : -ENOENT; }
static int fake_add(struct perf_event *e, int f) { (void)e; (void)f; return 0; }
static void fake_del(struct perf_event *e, int f) { (void)e; (void)f; }
static void fake_start(struct perf_event *e, int f) { (void)e; (void)f; }
static void fake_stop(struct perf_event *e, int f) { (void)e; (void)f; }
static void fake_read(struct perf_event *e) { (void)e; }
static struct pmu fake = { "fake", PERF_TYPE_RAW, NULL, fake_init, fake_add, fake_del, fake_start, fake_stop, fake_read };

static struct perf_ctx *ctx(int paranoid, bool priv)
{
  struct perf_sysctl s = { .paranoid = paranoid, .privileged = priv };
  struct perf_ctx *c = perf_ctx_create(&s, ram, clock_fn, NULL);
  perf_pmu_register(c, &fake);
  perf_pmu_register(c, perf_sw_pmu());
  return c;
}

/* A ring of scattered frames: records that cross frame boundaries and the
 * wrap read back whole through the tool's contiguous view. */
static void test_scattered_ring(void)
{
  phys_scatter(ram, 12345);
  /* A sample rate high enough that 1000 interrupts in one tick do not throttle. */
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true, .max_sample_rate = 10000000 };
  struct perf_ctx *c = perf_ctx_create(&sys, ram, clock_fn, NULL);
  perf_pmu_register(c, &fake);
  struct perf_event_attr a = { .type = PERF_TYPE_RAW, .size = sizeof a, .config = 1,
                               .sample_period = 1000, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_RAW };
  struct perf_event *e = NULL;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "event for the scattered ring");
  CHECK_EQ_U64(perf_event_mmap(e, 4, 4096), (uint64_t)-EINVAL, "mmap with a page size not the kernel's: EINVAL");
  CHECK_EQ_U64(perf_event_mmap(e, 3, PHYS_PAGE), (uint64_t)-EINVAL, "mmap of 3 data pages: EINVAL");
  CHECK_EQ_U64(perf_event_mmap(e, 4, PHYS_PAGE), 0, "mmap of 4 data pages");
  unsigned contiguous = 0;
  for (size_t i = 1; i < e->rb->nframes; i++) contiguous += e->rb->pfns[i] == e->rb->pfns[i - 1] + 1;
  CHECK(contiguous < 2, "the frames are scattered (%u of 4 neighbours contiguous)", contiguous);
  struct perf_event_mmap_page *up = perf_event_user_page(e);
  uint64_t size;
  const uint8_t *d = perf_event_data(e, &size);
  uint8_t payload[300];
  unsigned bad = 0, records = 0;
  for (unsigned i = 0; i < 1000; i++) {
    for (unsigned j = 0; j < sizeof payload; j++) payload[j] = (uint8_t)(i * 7 + j);
    struct perf_sample s = { .ip = 0x120000000 + i, .raw = payload, .raw_size = sizeof payload };
    uint64_t head = up->data_head;
    perf_event_overflow(e, &s);
    /* Read it back as a consumer does, byte by byte modulo the size. */
    uint8_t rec[512];
    struct perf_event_header h;
    for (unsigned k = 0; k < sizeof h; k++) ((uint8_t *)&h)[k] = d[(head + k) & (size - 1)];
    for (unsigned k = 0; k < h.size && k < sizeof rec; k++) rec[k] = d[(head + k) & (size - 1)];
    uint64_t ip;
    memcpy(&ip, rec + 8, 8);
    bad += h.type != PERF_RECORD_SAMPLE || ip != 0x120000000ull + i || memcmp(rec + 20, payload, sizeof payload);
    records++;
    __atomic_store_n(&up->data_tail, up->data_head, __ATOMIC_RELEASE);
  }
  CHECK(up->data_head > 3 * size, "the ring wrapped several times (head %llu)", (unsigned long long)up->data_head);
  CHECK_EQ_U64(bad, 0, "%u records across scattered frames read back intact", records);
  uint64_t free_before = phys_free_frames(ram);
  perf_event_close(e);
  CHECK_EQ_U64(phys_free_frames(ram), free_before + 5, "closing the last event frees the ring's 5 frames");
  perf_ctx_destroy(c);
  phys_scatter(ram, 0);
}

int main(void)
{
  ram = phys_create(64ull << 20);
  CHECK(ram != NULL, "64 MB of simulated RAM");
  if (!ram) return check_done();
  test_scattered_ring();
  struct perf_ctx *c = ctx(2, false);
  struct perf_event_attr a = { .type = PERF_TYPE_RAW, .size = sizeof a, .config = 1,
                               .sample_period = 1000, .exclude_kernel = 1 };
  struct perf_event *e = NULL;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "user-only event as a normal user");
  perf_event_close(e);
  struct perf_event_attr k = a;
  k.exclude_kernel = 0;
  CHECK_EQ_U64(perf_event_open(c, &k, 1000, -1, NULL, &e), (uint64_t)-EACCES, "kernel event at paranoid 2: EACCES");
  CHECK_EQ_U64(perf_event_open(c, &a, -1, 0, NULL, &e), (uint64_t)-EACCES, "cpu-wide at paranoid 2: EACCES");
  struct perf_event_attr bad = a;
  bad.size = 32;
  CHECK_EQ_U64(perf_event_open(c, &bad, 1000, -1, NULL, &e), (uint64_t)-E2BIG, "attr size below VER0: E2BIG");
  bad = a;
  bad.sample_type = 1ull << 40;
  CHECK_EQ_U64(perf_event_open(c, &bad, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "unknown sample_type bit: EINVAL");
  bad = a;
  bad.freq = 1;
  bad.sample_freq = 1000000;
  CHECK_EQ_U64(perf_event_open(c, &bad, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "sample_freq above max: EINVAL");
  bad = a;
  bad.type = 99;
  CHECK_EQ_U64(perf_event_open(c, &bad, 1000, -1, NULL, &e), (uint64_t)-ENOENT, "no PMU for the type: ENOENT");
  perf_ctx_destroy(c);

  /* Sample layout and RAW padding. */
  c = ctx(-1, true);
  a.exclude_kernel = 0;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT;
  a.sample_id_all = 1;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "privileged event");
  CHECK_EQ_U64(perf_event_mmap(e, 1, PHYS_PAGE), 0, "mmap one data page");
  fake_time = 777;
  uint8_t payload[5] = { 1, 2, 3, 4, 5 };
  struct perf_sample s = { .ip = 0x120000010, .pid = 7, .tid = 8, .period = 1000, .weight = 42,
                           .raw = payload, .raw_size = 5, .exact_ip = true };
  CHECK_EQ_U64(perf_event_overflow(e, &s), 0, "overflow not throttled");
  struct perf_event_mmap_page *up = perf_event_user_page(e);
  uint64_t size;
  const uint8_t *d = perf_event_data(e, &size);
  const struct perf_event_header *h = (const void *)d;
  CHECK_EQ_U64(h->type, PERF_RECORD_SAMPLE, "record type");
  CHECK_EQ_U64(h->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP, "misc: user, exact ip");
  /* 8 hdr + id + ip + tid + time + period (48) + raw 4 + 12 (64) + weight = 72 */
  CHECK_EQ_U64(h->size, 72, "size with RAW rounded to 8");
  uint64_t v;
  memcpy(&v, d + 8, 8); CHECK_EQ_U64(v, e->id, "IDENTIFIER first");
  memcpy(&v, d + 16, 8); CHECK_EQ_U64(v, 0x120000010, "IP");
  uint32_t w[2];
  memcpy(w, d + 24, 8); CHECK(w[0] == 7 && w[1] == 8, "pid, tid");
  memcpy(&v, d + 32, 8); CHECK_EQ_U64(v, 777, "TIME");
  memcpy(&v, d + 40, 8); CHECK_EQ_U64(v, 1000, "PERIOD");
  memcpy(w, d + 48, 4); CHECK_EQ_U64(w[0], 12, "RAW size field counts the padding");
  CHECK(d[52] == 1 && d[56] == 5 && d[57] == 0 && d[63] == 0, "RAW payload then zero pad");
  memcpy(&v, d + 64, 8);
  CHECK_EQ_U64(up->data_head, 72, "data_head advanced past the record");
  CHECK_EQ_U64(v, 42, "WEIGHT after RAW");
  /* Fill the page without consuming: the overflow is counted and a LOST
   * record comes first once the consumer makes room. */
  int written = 1;
  for (int i = 0; i < 200; i++) perf_event_overflow(e, &s), written++;
  CHECK(up->data_head <= PHYS_PAGE && e->lost > 0, "full buffer drops records (head %llu, lost %llu)",
        (unsigned long long)up->data_head, (unsigned long long)e->lost);
  uint64_t lost_before = e->lost;
  __atomic_store_n(&up->data_tail, up->data_head, __ATOMIC_RELEASE);
  uint64_t head = up->data_head;
  perf_event_overflow(e, &s);
  const struct perf_event_header *lh = (const void *)(d + (head & (size - 1)));
  CHECK_EQ_U64(lh->type, PERF_RECORD_LOST, "LOST record before the next sample");
  memcpy(&v, (const uint8_t *)lh + 16, 8);
  CHECK_EQ_U64(v, lost_before, "LOST carries the number dropped");
  perf_event_close(e);
  perf_ctx_destroy(c);

  /* read() with the time fields: they grow while the event is enabled and on
   * the PMU, and not while it is disabled (perf's update_event_times). */
  c = ctx(-1, true);
  fake_time = 1000;
  struct perf_event_attr rd = { .type = PERF_TYPE_RAW, .size = sizeof rd, .config = 1,
                                .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
                                               PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID };
  CHECK_EQ_U64(perf_event_open(c, &rd, 1000, -1, NULL, &e), 0, "counting event");
  fake_time = 1100;
  uint64_t rv[4];
  CHECK_EQ_U64(perf_event_read(e, rv, sizeof rv), 32, "read: value, enabled, running, id");
  CHECK(rv[1] == 100 && rv[2] == 100 && rv[3] == e->id, "enabled 100 ns, running 100 ns");
  perf_event_disable(e);
  fake_time = 1300;
  perf_event_read(e, rv, sizeof rv);
  CHECK(rv[1] == 100 && rv[2] == 100, "a disabled event accrues no time");
  perf_event_enable(e);
  fake_time = 1350;
  perf_event_read(e, rv, sizeof rv);
  CHECK(rv[1] == 150 && rv[2] == 150, "time resumes when re-enabled");
  perf_event_close(e);
  perf_ctx_destroy(c);

  /* Throttling: more than max_sample_rate / HZ interrupts in a tick. */
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true, .max_sample_rate = 1000, .hz = 100 };
  c = perf_ctx_create(&sys, ram, clock_fn, NULL);
  perf_pmu_register(c, &fake);
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "event for throttling");
  perf_event_mmap(e, 4, PHYS_PAGE);
  int throttled = 0;
  for (int i = 0; i < 20; i++) throttled += perf_event_overflow(e, &s);
  CHECK_EQ_U64(throttled, 1, "throttled once after 10 interrupts in a tick");
  fake_time += 20000000;
  perf_ctx_tick(c, 1, 1, 0, false);
  CHECK(!e->hw.throttled, "unthrottled at the next tick");
  perf_event_close(e);
  perf_ctx_destroy(c);
  phys_destroy(ram);
  return check_done();
}
