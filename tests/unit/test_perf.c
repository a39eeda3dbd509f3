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
static const struct perf_task task1000 = { .pid = 1000, .tid = 1000 };

static int fake_init(struct perf_event *e) { return e->attr.type == PERF_TYPE_RAW ? 0 : -ENOENT; }
static int fake_add(struct perf_event *e, int f) { (void)e; (void)f; return 0; }
static void fake_del(struct perf_event *e, int f) { (void)e; (void)f; }
static void fake_start(struct perf_event *e, int f) { (void)e; (void)f; }
static void fake_stop(struct perf_event *e, int f) { (void)e; (void)f; }
static void fake_read(struct perf_event *e) { (void)e; }
static struct pmu fake = { .name = "fake", .type = PERF_TYPE_RAW, .priv = NULL, .event_init = fake_init, .add = fake_add, .del = fake_del, .start = fake_start, .stop = fake_stop, .read = fake_read };

static struct perf_ctx *ctx(int paranoid, bool priv)
{
  struct perf_sysctl s = { .paranoid = paranoid, .privileged = priv };
  struct perf_ctx *c = perf_ctx_create(&s, ram, clock_fn, NULL);
  perf_pmu_register(c, &fake);
  perf_pmu_register(c, perf_sw_pmu());
  perf_sched_in(c, 0, &task1000);   /* the task the tests' events follow runs on CPU 0 */
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
  perf_sched_in(c, 0, &task1000);
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

static uint64_t at64(const uint8_t *p, size_t off) { uint64_t v; memcpy(&v, p + off, 8); return v; }
static uint32_t at32(const uint8_t *p, size_t off) { uint32_t v; memcpy(&v, p + off, 4); return v; }

/* Record layouts at the byte offsets of Linux's uapi (perf_event.h comments on
 * PERF_RECORD_SAMPLE, COMM, MMAP2 and struct sample_id): every fixed-size
 * sample field in perf_output_sample order, and the sample_id_all trailer
 * (pid/tid, time, id, stream_id, cpu, identifier) after COMM and MMAP2. */
static void test_layouts(void)
{
  struct perf_ctx *c = ctx(-1, true);
  struct perf_event_attr a = {
    .type = PERF_TYPE_RAW, .size = sizeof a, .config = 1, .sample_period = 1000,
    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                   PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC,
    .read_format = PERF_FORMAT_ID, .sample_id_all = 1, .comm = 1, .mmap2 = 1,
  };
  struct perf_event *e = NULL;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "layouts: event");
  CHECK_EQ_U64(perf_event_mmap(e, 1, PHYS_PAGE), 0, "layouts: mmap");
  uint64_t size;
  const uint8_t *d = perf_event_data(e, &size);
  fake_time = 5555;
  struct perf_sample s = { .ip = 0x120000040, .addr = 0x140000008, .pid = 7, .tid = 9, .cpu = 0,
                           .period = 1000, .weight = 33, .data_src = 0x1234, .kernel = true };
  perf_event_overflow(e, &s);
  const struct perf_event_header *h = (const void *)d;
  CHECK(h->type == PERF_RECORD_SAMPLE && h->misc == PERF_RECORD_MISC_KERNEL && h->size == 112,
        "layouts: SAMPLE of 13 u64 after the header, kernel mode (size %u)", h->size);
  CHECK(at64(d, 8) == e->id && at64(d, 16) == 0x120000040 && at32(d, 24) == 7 && at32(d, 28) == 9 &&
        at64(d, 32) == 5555 && at64(d, 40) == 0x140000008 && at64(d, 48) == e->id &&
        at64(d, 56) == e->id && at64(d, 64) == 0 && at64(d, 72) == 1000,
        "layouts: identifier, ip, pid/tid, time, addr, id, stream_id, cpu/res, period");
  CHECK(at64(d, 80) == e->count && at64(d, 88) == e->id && at64(d, 96) == 33 && at64(d, 104) == 0x1234,
        "layouts: read value and id, weight, data_src");
  const uint8_t *r = d + 112;
  const struct perf_task ls = { .pid = 7, .tid = 1000 }, stranger = { .pid = 8, .tid = 8 };
  perf_record_comm(c, 0, &stranger, "sh", true);
  CHECK_EQ_U64(perf_event_user_page(e)->data_head, 112, "no COMM for a task the event does not follow");
  perf_record_comm(c, 0, &ls, "ls", true);
  h = (const void *)r;
  CHECK(h->type == PERF_RECORD_COMM && h->misc == PERF_RECORD_MISC_COMM_EXEC && h->size == 72,
        "layouts: COMM of 8 + 16 + 48-byte trailer (size %u)", h->size);
  CHECK(at32(r, 8) == 7 && at32(r, 12) == 1000 && strcmp((const char *)r + 16, "ls") == 0 && at64(r, 16) == 0x736c,
        "layouts: COMM pid, tid, comm NUL-padded to 8");
  CHECK(at32(r, 24) == 7 && at32(r, 28) == 1000 && at64(r, 32) == 5555 && at64(r, 40) == e->id &&
        at64(r, 48) == e->id && at64(r, 56) == 0 && at64(r, 64) == e->id,
        "layouts: trailer pid/tid, time, id, stream_id, cpu/res, identifier last");
  r += 72;
  perf_record_mmap2(c, 0, &ls, 0x120000000, 0x4000, 0x2000, 5, 2, "/bin/ls");
  h = (const void *)r;
  CHECK(h->type == PERF_RECORD_MMAP2 && h->misc == PERF_RECORD_MISC_USER && h->size == 128,
        "layouts: MMAP2 of 72 + 8 + 48-byte trailer (size %u)", h->size);
  CHECK(at32(r, 8) == 7 && at32(r, 12) == 1000 && at64(r, 16) == 0x120000000 && at64(r, 24) == 0x4000 &&
        at64(r, 32) == 0x2000 && at64(r, 40) == 0 && at64(r, 48) == 0 && at64(r, 56) == 0 &&
        at32(r, 64) == 5 && at32(r, 68) == 2 && strcmp((const char *)r + 72, "/bin/ls") == 0,
        "layouts: MMAP2 pid, tid, addr, len, pgoff, maj/min, ino, ino_generation, prot, flags, filename");
  CHECK(at64(r, 80) == ((uint64_t)1000 << 32 | 7) && at64(r, 120) == e->id, "layouts: MMAP2 trailer");
  perf_event_close(e);
  perf_ctx_destroy(c);
}

/* A one-counter PMU (type 20) and a PMU that always fits (type 21), for
 * multiplexing: the clock's ns count as events while an event is on. */
static struct perf_event *one_slot;
static int slot_init_a(struct perf_event *e) { return e->attr.type == 20 ? 0 : -ENOENT; }
static int slot_init_b(struct perf_event *e) { return e->attr.type == 21 ? 0 : -ENOENT; }
static int slot_add(struct perf_event *e, int f)
{
  (void)f;
  if (e->attr.type == 20) { if (one_slot) return -EAGAIN; one_slot = e; }
  e->hw.prev_count = fake_time;
  return 0;
}
static void slot_read(struct perf_event *e) { e->count += fake_time - e->hw.prev_count; e->hw.prev_count = fake_time; }
static void slot_del(struct perf_event *e, int f) { (void)f; slot_read(e); if (one_slot == e) one_slot = NULL; }
static void slot_start(struct perf_event *e, int f) { (void)e; (void)f; }
static void slot_stop(struct perf_event *e, int f) { (void)e; (void)f; }
static struct pmu slot_a = { .name = "one-slot", .type = 20, .priv = NULL, .event_init = slot_init_a, .add = slot_add, .del = slot_del, .start = slot_start, .stop = slot_stop, .read = slot_read };
static struct pmu slot_b = { .name = "always", .type = 21, .priv = NULL, .event_init = slot_init_b, .add = slot_add, .del = slot_del, .start = slot_start, .stop = slot_stop, .read = slot_read };

/* Multiplexing rotates each PMU's events on its own (Linux's per-PMU
 * contexts): two events of a one-counter PMU share its time half and half,
 * scaling recovers their counts, and an event of another PMU never stops. */
static void test_rotation(void)
{
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true };
  fake_time = 0;
  struct perf_ctx *c = perf_ctx_create(&sys, ram, clock_fn, NULL);
  perf_pmu_register(c, &slot_b);
  perf_pmu_register(c, &slot_a);
  perf_sched_in(c, 0, &task1000);
  struct perf_event_attr a = { .type = 20, .size = sizeof a,
                               .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING };
  struct perf_event_attr b = a;
  b.type = 21;
  struct perf_event *e1 = NULL, *e2 = NULL, *e3 = NULL;
  CHECK(perf_event_open(c, &b, 1000, -1, NULL, &e3) == 0 && perf_event_open(c, &a, 1000, -1, NULL, &e1) == 0 &&
        perf_event_open(c, &a, 1000, -1, NULL, &e2) == 0, "three counting events");
  for (int i = 1; i <= 400; i++) {   /* 400 ticks of 1 ms: 100 rotations at 4 ms */
    fake_time = (uint64_t)i * 1000000;
    perf_ctx_tick(c, 0, 1000, 1000, 0, false);
  }
  uint64_t v1[3], v2[3], v3[3];
  CHECK(perf_event_read(e1, v1, sizeof v1) == 24 && perf_event_read(e2, v2, sizeof v2) == 24 &&
        perf_event_read(e3, v3, sizeof v3) == 24, "read value, enabled, running");
  CHECK(v1[2] >= 190000000 && v1[2] <= 210000000 && v2[2] >= 190000000 && v2[2] <= 210000000,
        "the one-counter events ran about half the time each (%llu and %llu of 400000000 ns)",
        (unsigned long long)v1[2], (unsigned long long)v2[2]);
  CHECK_EQ_U64(v1[0], v1[2], "a counter counts while it runs");
  CHECK_EQ_U64(v3[2], v3[1], "the other PMU's event runs all the time it is enabled");
  /* PERF_EVENT_IOC_RESET zeroes the count, not the times. */
  perf_event_reset(e3);
  uint64_t r[3];
  perf_event_read(e3, r, sizeof r);
  CHECK(r[0] == 0 && r[1] == v3[1], "RESET: count 0, time_enabled kept");
  /* PERIOD and REFRESH are for sampling events only. */
  CHECK_EQ_U64(perf_event_period(e3, 1000), (uint64_t)-EINVAL, "PERIOD of a counting event: EINVAL");
  CHECK_EQ_U64(perf_event_refresh(e3, 1), (uint64_t)-EINVAL, "REFRESH of a counting event: EINVAL");
  perf_ctx_destroy(c);
}

/* Groups (sys_perf_event_open's group rules, group_sched_in, perf_read_group):
 * a group of two one-counter events never fits and never runs, all or
 * nothing; a group of a one-counter leader and an always-fitting sibling
 * rotates with a single event as one unit, the sibling off whenever its
 * leader is; the GROUP read layout; siblings promoted when the leader goes. */
static void test_groups(void)
{
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true };
  fake_time = 0;
  struct perf_ctx *c = perf_ctx_create(&sys, ram, clock_fn, NULL);
  perf_pmu_register(c, &slot_b);
  perf_pmu_register(c, &slot_a);
  perf_pmu_register(c, perf_sw_pmu());
  perf_sched_in(c, 0, &task1000);
  struct perf_event_attr a = { .type = 20, .size = sizeof a,
                               .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                              PERF_FORMAT_TOTAL_TIME_RUNNING };
  struct perf_event_attr b = a, sw = a;
  b.type = 21;
  sw.type = PERF_TYPE_SOFTWARE;
  sw.config = PERF_COUNT_SW_PAGE_FAULTS;
  struct perf_event *l1 = NULL, *s1 = NULL, *l2 = NULL, *s2 = NULL, *x = NULL, *solo = NULL;
  CHECK(perf_event_open(c, &a, 1000, -1, NULL, &l1) == 0 && perf_event_open(c, &a, 1000, -1, l1, &s1) == 0,
        "groups: two one-counter events in one group");
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, s1, &x), (uint64_t)-EINVAL, "groups: joining a sibling: EINVAL");
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, 0, l1, &x), (uint64_t)-EINVAL, "groups: another CPU: EINVAL");
  CHECK_EQ_U64(perf_event_open(c, &a, 1001, -1, l1, &x), (uint64_t)-EINVAL, "groups: another task: EINVAL");
  struct perf_event_attr pinned = a;
  pinned.pinned = 1;
  CHECK_EQ_U64(perf_event_open(c, &pinned, 1000, -1, l1, &x), (uint64_t)-EINVAL, "groups: a pinned sibling: EINVAL");
  CHECK_EQ_U64(perf_event_open(c, &b, 1000, -1, l1, &x), (uint64_t)-EINVAL, "groups: a second hardware PMU: EINVAL");
  for (int i = 1; i <= 10; i++) {
    fake_time = (uint64_t)i * 1000000;
    perf_ctx_tick(c, 0, 1000, 1000, 0, false);
  }
  uint64_t g1[7], g2[7];
  CHECK_EQ_U64(perf_event_read(l1, g1, sizeof g1), 56, "groups: GROUP|ID|times of two is 7 words");
  CHECK(g1[0] == 2 && g1[4] == l1->id && g1[6] == s1->id && g1[1] > 0 && g1[2] == 0 && g1[3] == 0 && g1[5] == 0,
        "groups: a group that cannot fit never runs (nr %llu, enabled %llu, running %llu, counts %llu %llu)",
        (unsigned long long)g1[0], (unsigned long long)g1[1], (unsigned long long)g1[2], (unsigned long long)g1[3],
        (unsigned long long)g1[5]);
  perf_event_close(s1);
  perf_event_close(l1);
  CHECK(perf_event_open(c, &a, 1000, -1, NULL, &l2) == 0 && perf_event_open(c, &sw, 1000, -1, l2, &s2) == 0 &&
        perf_event_open(c, &a, 1000, -1, NULL, &solo) == 0, "groups: a one-counter leader with a software sibling, and a single event");
  for (int i = 11; i <= 410; i++) {   /* 400 ticks of 1 ms: 100 rotations at 4 ms */
    fake_time = (uint64_t)i * 1000000;
    perf_ctx_tick(c, 0, 1000, 1000, 0, false);
    perf_sw_event(c, 0, PERF_COUNT_SW_PAGE_FAULTS, 1000, 1000, 0, false);
  }
  CHECK_EQ_U64(perf_event_read(s2, g2, sizeof g2), 56, "groups: a sibling's read is its group's");
  CHECK(g2[2] >= 190000000 && g2[2] <= 210000000 && g2[1] >= 399000000,
        "groups: the group and the single event take turns (running %llu of %llu)", (unsigned long long)g2[2],
        (unsigned long long)g2[1]);
  CHECK(g2[5] >= 180 && g2[5] <= 220, "groups: the software sibling counts only while its leader is on (%llu of 400)",
        (unsigned long long)g2[5]);
  perf_event_close(l2);
  CHECK(perf_event_read(s2, g2, sizeof g2) == 40 && g2[0] == 1,
        "groups: the leader closed, its sibling is a group of one");
  perf_ctx_destroy(c);
}

/* PERF_EVENT_IOC_REFRESH: the event disables itself after n overflows;
 * PERF_EVENT_IOC_PERIOD changes the period; inherit refuses REFRESH. */
static void test_refresh_period(void)
{
  struct perf_ctx *c = ctx(-1, true);
  struct perf_event_attr a = { .type = PERF_TYPE_RAW, .size = sizeof a, .config = 1, .sample_period = 1000,
                               .sample_type = PERF_SAMPLE_IP, .disabled = 1 };
  struct perf_event *e = NULL;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "a disabled sampling event");
  CHECK_EQ_U64(perf_event_refresh(e, 2), 0, "REFRESH 2");
  CHECK(e->enabled, "REFRESH enables it");
  struct perf_sample s = { .ip = 0x120000000 };
  CHECK_EQ_U64(perf_event_overflow(e, &s), 0, "first overflow: goes on");
  CHECK_EQ_U64(perf_event_overflow(e, &s), 1, "second overflow: the driver must stop it");
  CHECK(!e->enabled, "after the REFRESH count the event is disabled");
  CHECK_EQ_U64(perf_event_period(e, 0), (uint64_t)-EINVAL, "PERIOD 0: EINVAL");
  CHECK_EQ_U64(perf_event_period(e, 5000), 0, "PERIOD 5000");
  CHECK_EQ_U64(e->hw.sample_period, 5000, "the new period is in force");
  perf_event_close(e);
  a.inherit = 1;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "an inherited sampling event");
  CHECK_EQ_U64(perf_event_refresh(e, 1), (uint64_t)-EINVAL, "REFRESH of an inherited event: EINVAL (as Linux)");
  perf_ctx_destroy(c);
}

/* Several CPUs: an event follows its task (and, with inherit, the task's
 * threads and descendants) onto whichever CPU runs it, counts only while
 * they run, and reads as the sum over the CPUs; a CPU-wide event counts
 * whatever runs on its CPU. */
static void test_percpu(void)
{
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true, .ncpus = 2 };
  fake_time = 0;
  struct perf_ctx *c = perf_ctx_create(&sys, ram, clock_fn, NULL);
  perf_pmu_register(c, &slot_b);
  struct perf_event_attr a = { .type = 21, .size = sizeof a, .inherit = 1,
                               .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING };
  struct perf_event_attr only = a;
  only.inherit = 0;
  struct perf_event *inh = NULL, *one = NULL, *wide = NULL, *e = NULL;
  CHECK(perf_event_open(c, &a, 1000, -1, NULL, &inh) == 0 && perf_event_open(c, &only, 1000, -1, NULL, &one) == 0 &&
        perf_event_open(c, &a, -1, 1, NULL, &wide) == 0, "an inherited, a single-thread and a CPU-wide event");
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, 2, NULL, &e), (uint64_t)-EINVAL, "CPU 2 of 2: EINVAL");
  const struct perf_task main_thread = { .pid = 1000, .tid = 1000 };
  const struct perf_task thread = { .pid = 1000, .tid = 1001 };
  const struct perf_task child = { .pid = 2000, .tid = 2000, .ancestors = { 1000 }, .nancestors = 1 };
  const struct perf_task other = { .pid = 3000, .tid = 3000, .ancestors = { 1 }, .nancestors = 1 };
  perf_sched_in(c, 0, &main_thread);
  perf_sched_in(c, 1, &thread);
  fake_time += 1000;                   /* both threads run 1000 ns, one per CPU; the main thread runs on to 1110 */
  perf_sched_out(c, 1);
  perf_sched_in(c, 1, &child);
  fake_time += 100;                    /* a child process on CPU 1 */
  perf_sched_out(c, 1);
  perf_sched_in(c, 1, &other);
  fake_time += 10;                     /* an unrelated task on CPU 1 */
  perf_sched_out(c, 0);
  fake_time += 1;                      /* CPU 0 idle */
  uint64_t v[3];
  perf_event_read(inh, v, sizeof v);
  CHECK(v[0] == 2210 && v[1] == 2210 && v[2] == 2210,
        "inherited: the thread and the child counted too, summed over CPUs (%llu, enabled %llu)",
        (unsigned long long)v[0], (unsigned long long)v[1]);
  perf_event_read(one, v, sizeof v);
  CHECK(v[0] == 1110 && v[1] == 1110, "without inherit: the main thread only (%llu)", (unsigned long long)v[0]);
  perf_event_read(wide, v, sizeof v);
  CHECK(v[0] == 1111 && v[1] == 1111, "CPU-wide on CPU 1: every task there, all the time (%llu)",
        (unsigned long long)v[0]);
  perf_ctx_destroy(c);
}

/* perf_reg_validate and the attr checks of register and stack sampling
 * (perf_copy_attr): r9-r15 (switch_stack), bits at or above MAX and empty
 * masks are EINVAL; sample_stack_user must be 8-aligned and below USHRT_MAX;
 * a callchain deeper than perf_event_max_stack is EOVERFLOW. */
static void test_regs_attr(void)
{
  CHECK_EQ_U64(perf_reg_validate(0), (uint64_t)-EINVAL, "perf_reg_validate: empty mask refused");
  for (int r = 9; r <= 15; r++)
    CHECK_EQ_U64(perf_reg_validate(1ull << r), (uint64_t)-EINVAL, "perf_reg_validate: r%d (switch_stack) refused", r);
  CHECK_EQ_U64(perf_reg_validate(1ull << 32), (uint64_t)-EINVAL, "perf_reg_validate: bit 32 (MAX) refused");
  CHECK_EQ_U64(perf_reg_validate(1ull << 63), (uint64_t)-EINVAL, "perf_reg_validate: bit 63 refused");
  CHECK_EQ_U64(perf_reg_validate(PERF_REG_ALPHA_MASK), 0, "perf_reg_validate: r0-r8, r16-r28, gp, sp, pc");
  CHECK_EQ_U64(PERF_REG_ALPHA_MASK, 0xffff01ffull, "the mask of pt_regs registers");
  struct perf_regs f = { .abi = PERF_SAMPLE_REGS_ABI_64 };
  for (int i = 0; i < PERF_REG_ALPHA_MAX; i++) f.r[i] = 100 + (uint64_t)i;
  CHECK(perf_reg_value(&f, 12) == 0 && perf_reg_value(&f, 40) == 0 && perf_reg_value(&f, 31) == 131 &&
        perf_reg_value(&f, 30) == 130, "perf_reg_value: reserved indices read 0, SP and PC by index");
  struct perf_ctx *c = ctx(-1, true);
  struct perf_event_attr a = { .type = PERF_TYPE_RAW, .size = sizeof a, .config = 1, .sample_period = 1000,
                               .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER, .sample_regs_user = 1 };
  struct perf_event *e = NULL;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "REGS_USER with r0 accepted (was EOPNOTSUPP)");
  perf_event_close(e);
  a.sample_regs_user = 1ull << 15;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "REGS_USER naming r15: EINVAL");
  a.sample_regs_user = 0;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "REGS_USER with an empty mask: EINVAL");
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR;
  a.sample_regs_intr = 1ull << 32;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "REGS_INTR with bit 32: EINVAL");
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER;
  a.sample_stack_user = 8190;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "STACK_USER not 8-aligned: EINVAL");
  a.sample_stack_user = 65536;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "STACK_USER of 65536: EINVAL");
  a.sample_stack_user = 65528;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "STACK_USER of 65528 accepted");
  perf_event_close(e);
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
  a.sample_max_stack = 128;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), (uint64_t)-EOVERFLOW, "sample_max_stack 128: EOVERFLOW");
  a.sample_max_stack = 0;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "CALLCHAIN accepted (was EOPNOTSUPP)");
  CHECK_EQ_U64(e->attr.sample_max_stack, 127, "sample_max_stack 0 becomes perf_event_max_stack");
  perf_event_close(e);
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_AUX;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), (uint64_t)-EOPNOTSUPP, "AUX still EOPNOTSUPP");
  perf_ctx_destroy(c);
}

/* perf_sample_ustack_size: 0 without user regs; TASK_SIZE - sp bounds it;
 * a dump that would overflow the u16 record size is cut to fit with the
 * size and dyn_size words: USHRT_MAX - header - 16 - 8, rounded up to 8. */
static void test_ustack_size(void)
{
  struct perf_regs none = { 0 }, u = { .abi = PERF_SAMPLE_REGS_ABI_64, .user = true };
  u.r[PERF_REG_ALPHA_SP] = 0x11fffe000;
  CHECK_EQ_U64(perf_sample_ustack_size(8192, 64, &none), 0, "ustack size: no user regs, no dump");
  CHECK_EQ_U64(perf_sample_ustack_size(8192, 64, NULL), 0, "ustack size: NULL regs, no dump");
  CHECK_EQ_U64(perf_sample_ustack_size(8192, 64, &u), 8192, "ustack size: what was asked when it fits");
  CHECK_EQ_U64(perf_sample_ustack_size(65528, 64, &u), 65528 - 64 - 16, "ustack size: cut so the record is 65528");
  CHECK_EQ_U64(perf_sample_ustack_size(65528, 1000, &u), 65528 - 1000 - 16, "ustack size: cut by a 1000-byte header");
  CHECK_EQ_U64(perf_sample_ustack_size(65400, 104, &u), 65400, "ustack size: 104 + 16 + 65400 = 65520 fits");
  u.r[PERF_REG_ALPHA_SP] = (1ull << 42) - 100;
  CHECK_EQ_U64(perf_sample_ustack_size(8192, 64, &u), 104, "ustack size: at most TASK_SIZE - sp, rounded up to 8");
  u.r[PERF_REG_ALPHA_SP] = 1ull << 43;
  CHECK_EQ_U64(perf_sample_ustack_size(8192, 64, &u), 0, "ustack size: an SP above TASK_SIZE dumps nothing");
}

/* A fake arch: a user frame with r[i] = 0x1000 + i, SP 0x11fff0000; a
 * user stack whose byte at address a is (a & 0xff) up to 0x11fff0100 (256
 * bytes, then a fault); a kernel chain of two return addresses. */
static bool fake_user_none;
static void fake_regs(void *ctx, int cpu, const struct perf_sample *s, struct perf_regs *intr, struct perf_regs *user)
{
  (void)ctx; (void)cpu;
  if (!fake_user_none) {
    user->abi = PERF_SAMPLE_REGS_ABI_64;
    user->user = true;
    for (int i = 0; i < PERF_REG_ALPHA_MAX; i++) user->r[i] = 0x1000 + (uint64_t)i;
    user->r[PERF_REG_ALPHA_SP] = 0x11fff0000;
    user->r[PERF_REG_ALPHA_PC] = s->kernel ? 0x120000abc : s->ip;
  }
  if (s->kernel) {
    intr->abi = PERF_SAMPLE_REGS_ABI_64;
    intr->r[PERF_REG_ALPHA_PC] = s->ip;
    intr->r[PERF_REG_ALPHA_SP] = 0xfffffc0002004000;
  } else {
    *intr = *user;
  }
}
static size_t fake_copy(void *ctx, int cpu, const struct perf_sample *s, uint64_t addr, void *buf, size_t len)
{
  (void)ctx; (void)cpu; (void)s;
  size_t n = 0;
  for (; n < len && addr + n < 0x11fff0100; n++) ((uint8_t *)buf)[n] = (uint8_t)(addr + n);
  return n;
}
static size_t fake_kchain(void *ctx, int cpu, const struct perf_regs *intr, uint64_t *ips, size_t max)
{
  (void)ctx; (void)cpu;
  uint64_t k[3] = { intr->r[PERF_REG_ALPHA_PC], 0xfffffc0000313468, 0xfffffc0000310068 };
  size_t n = max < 3 ? max : 3;
  memcpy(ips, k, n * 8);
  return n;
}

/* The record layout of a sample with every register and stack field, at
 * the offsets of perf_output_sample's order: ..., PERIOD, CALLCHAIN, RAW,
 * REGS_USER, STACK_USER (size, data, dyn_size), WEIGHT, DATA_SRC,
 * REGS_INTR; the callchain's PERF_CONTEXT_KERNEL/USER markers and
 * sample_max_stack; abi NONE writes the abi word only and no stack. */
static void test_regs_layout(void)
{
  struct perf_ctx *c = ctx(-1, true);
  const struct perf_arch arch = { .regs = fake_regs, .copy_user = fake_copy, .kernel_chain = fake_kchain };
  perf_ctx_set_arch(c, &arch);
  struct perf_event_attr a = {
    .type = PERF_TYPE_RAW, .size = sizeof a, .config = 1, .sample_period = 1000,
    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
                   PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
                   PERF_SAMPLE_REGS_INTR,
    .sample_regs_user = 1ull << 0 | 1ull << 30 | 1ull << 31, .sample_stack_user = 512,
    .sample_regs_intr = 1ull << 30 | 1ull << 31,
  };
  struct perf_event *e = NULL;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "regs layout: event");
  CHECK_EQ_U64(perf_event_mmap(e, 2, PHYS_PAGE), 0, "regs layout: mmap");
  uint64_t size;
  const uint8_t *d = perf_event_data(e, &size);
  uint32_t payload = 0xabcd;
  struct perf_sample s = { .ip = 0xfffffc0000313000, .period = 1000, .weight = 5, .data_src = 6, .kernel = true,
                           .raw = &payload, .raw_size = 4 };
  perf_event_overflow(e->child[0], &s);
  const struct perf_event_header *h = (const void *)d;
  /* 8 hdr, ip 8, period 8, chain 8 + 6*8, raw 8, uregs 8+24, ustack 8+512+8, weight, data_src, iregs 8+16 */
  size_t want = 8 + 8 + 8 + 56 + 8 + 32 + 528 + 8 + 8 + 24;
  CHECK_EQ_U64(h->size, want, "regs layout: kernel sample size");
  CHECK(at64(d, 8) == s.ip && at64(d, 16) == 1000, "regs layout: ip, period");
  CHECK(at64(d, 24) == 6 && at64(d, 32) == (uint64_t)PERF_CONTEXT_KERNEL && at64(d, 40) == s.ip &&
        at64(d, 48) == 0xfffffc0000313468 && at64(d, 56) == 0xfffffc0000310068 &&
        at64(d, 64) == (uint64_t)PERF_CONTEXT_USER && at64(d, 72) == 0x120000abc,
        "regs layout: callchain nr 6: KERNEL, ip, two callers, USER, user pc");
  CHECK(at32(d, 80) == 4 && at32(d, 84) == 0xabcd, "regs layout: RAW after the callchain");
  CHECK(at64(d, 88) == PERF_SAMPLE_REGS_ABI_64 && at64(d, 96) == 0x1000 && at64(d, 104) == 0x11fff0000 &&
        at64(d, 112) == 0x120000abc, "regs layout: REGS_USER abi 2, r0, sp, pc in bit order");
  CHECK_EQ_U64(at64(d, 120), 512, "regs layout: STACK_USER size 512");
  bool stack_ok = true;
  for (int i = 0; i < 512; i++) stack_ok &= d[128 + i] == (i < 256 ? (uint8_t)i : 0);
  CHECK(stack_ok, "regs layout: stack bytes from the user SP, zero past the fault");
  CHECK_EQ_U64(at64(d, 640), 256, "regs layout: dyn_size = the 256 bytes copied");
  CHECK(at64(d, 648) == 5 && at64(d, 656) == 6, "regs layout: WEIGHT, DATA_SRC after the stack");
  CHECK(at64(d, 664) == PERF_SAMPLE_REGS_ABI_64 && at64(d, 672) == 0xfffffc0002004000 && at64(d, 680) == s.ip,
        "regs layout: REGS_INTR last: abi, kernel sp, pc");
  /* No user frame: abi only, stack size 0, no USER part of the chain. */
  fake_user_none = true;
  uint64_t head = perf_event_user_page(e)->data_head;
  perf_event_overflow(e->child[0], &s);
  const uint8_t *r = d + head;
  h = (const void *)r;
  CHECK_EQ_U64(h->size, 8 + 8 + 8 + 40 + 8 + 8 + 8 + 16 + 24, "regs layout: no user frame: smaller record");
  CHECK(at64(r, 24) == 4 && at32(r, 64) == 4 && at64(r, 72) == PERF_SAMPLE_REGS_ABI_NONE && at64(r, 80) == 0,
        "regs layout: chain without USER part, REGS_USER abi NONE, STACK_USER size 0");
  fake_user_none = false;
  perf_event_close(e);
  /* sample_max_stack 2 and exclude_callchain_kernel. */
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
  a.sample_max_stack = 2;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "max_stack 2: event");
  perf_event_mmap(e, 1, PHYS_PAGE);
  d = perf_event_data(e, &size);
  perf_event_overflow(e->child[0], &s);
  CHECK(at64(d, 16) == 4 && at64(d, 24) == (uint64_t)PERF_CONTEXT_KERNEL && at64(d, 32) == s.ip &&
        at64(d, 40) == 0xfffffc0000313468 && at64(d, 48) == (uint64_t)PERF_CONTEXT_USER,
        "max_stack 2: two entries, markers not counted, the user part has no room left");
  perf_event_close(e);
  a.sample_max_stack = 0;
  a.exclude_callchain_kernel = 1;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "exclude_callchain_kernel: event");
  perf_event_mmap(e, 1, PHYS_PAGE);
  d = perf_event_data(e, &size);
  perf_event_overflow(e->child[0], &s);
  CHECK(at64(d, 16) == 2 && at64(d, 24) == (uint64_t)PERF_CONTEXT_USER && at64(d, 32) == 0x120000abc,
        "exclude_callchain_kernel: only USER, user pc");
  perf_event_close(e);
  /* A record at the size limit: a 65528-byte dump is cut to fit 65528 bytes in all. */
  a.exclude_callchain_kernel = 0;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  a.sample_regs_user = PERF_REG_ALPHA_MASK;
  a.sample_stack_user = 65528;
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "large dump: event");
  perf_event_mmap(e, 16, PHYS_PAGE);
  d = perf_event_data(e, &size);
  s.kernel = false;
  s.ip = 0x120000100;
  perf_event_overflow(e->child[0], &s);
  h = (const void *)d;
  CHECK_EQ_U64(h->size, 65528, "large dump: the record is cut to 65528 bytes");
  CHECK_EQ_U64(at64(d, 16 + 8 + 25 * 8), 65528 - 16 - 208 - 16, "large dump: size = 65528 - header, ip, regs, words");
  CHECK_EQ_U64(at64(d, 16 + 8 + 24 * 8), 0x120000100, "large dump: user pc is the sample ip");
  perf_event_close(e);
  perf_ctx_destroy(c);
}

int main(void)
{
  ram = phys_create(64ull << 20);
  CHECK(ram != NULL, "64 MB of simulated RAM");
  if (!ram) return check_done();
  test_scattered_ring();
  test_layouts();
  test_rotation();
  test_refresh_period();
  test_percpu();
  test_regs_attr();
  test_ustack_size();
  test_regs_layout();
  test_groups();
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
  for (int i = 0; i < 200; i++) perf_event_overflow(e, &s);
  CHECK(up->data_head <= PHYS_PAGE && e->lost > 0, "full buffer drops records (head %llu, lost %llu)",
        (unsigned long long)up->data_head, (unsigned long long)e->lost);
  uint64_t lost_before = e->lost;
  __atomic_store_n(&up->data_tail, up->data_head, __ATOMIC_RELEASE);
  uint64_t head = up->data_head;
  perf_event_overflow(e, &s);
  const struct perf_event_header *lh = (const void *)(d + (head & (size - 1)));
  CHECK_EQ_U64(lh->type, PERF_RECORD_LOST, "LOST record before the next sample");
  memcpy(&v, (const uint8_t *)lh + 8, 8);
  CHECK_EQ_U64(v, e->id, "LOST carries the event's id first");
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
  /* PERF_FORMAT_GROUP on a lone event: Linux's struct read_format for a
   * group, { nr, time_enabled, time_running, { value, id } } with nr = 1. */
  struct perf_event_attr gr = rd;
  gr.read_format |= PERF_FORMAT_GROUP;
  CHECK_EQ_U64(perf_event_open(c, &gr, 1000, -1, NULL, &e), 0, "group-format event");
  fake_time = 1450;
  uint64_t gv[5] = { 0 };
  CHECK_EQ_U64(perf_event_read(e, gv, sizeof gv), 40, "group read: nr, enabled, running, value, id");
  CHECK(gv[0] == 1 && gv[1] == 100 && gv[2] == 100 && gv[3] == e->count && gv[4] == e->id,
        "group read layout: nr 1 first, the times, then value and id");
  perf_event_close(e);
  perf_ctx_destroy(c);

  /* Software events: a counting cpu-clock counts the nanoseconds that pass;
   * page-faults in frequency mode samples (the period starts at 1). */
  c = ctx(-1, true);
  fake_time = 5000;
  struct perf_event_attr clk = { .type = PERF_TYPE_SOFTWARE, .size = sizeof clk,
                                 .config = PERF_COUNT_SW_CPU_CLOCK };
  CHECK_EQ_U64(perf_event_open(c, &clk, 1000, -1, NULL, &e), 0, "counting cpu-clock");
  fake_time = 5000 + 3 * 4000000;
  perf_ctx_tick(c, 0, 1000, 1000, 0x120000000, false);
  fake_time += 1000;
  perf_ctx_tick(c, 0, 1000, 1000, 0x120000000, false);
  uint64_t cv[1];
  perf_event_read(e, cv, sizeof cv);
  CHECK_EQ_U64(cv[0], 3 * 4000000 + 1000, "counting cpu-clock: the nanoseconds between open and the last tick");
  /* Between ticks a read is up to date (cpu_clock_event_read), and the
   * stretch between the last tick and a sched-out is counted. */
  fake_time += 777;
  perf_event_read(e, cv, sizeof cv);
  CHECK_EQ_U64(cv[0], 3 * 4000000 + 1777, "counting cpu-clock: a read between ticks counts up to now");
  fake_time += 500;
  perf_sched_out(c, 0);
  fake_time += 100000;
  perf_event_read(e, cv, sizeof cv);
  CHECK_EQ_U64(cv[0], 3 * 4000000 + 2277, "counting cpu-clock: counted until sched-out, not while off the CPU");
  perf_sched_in(c, 0, &task1000);
  fake_time += 300;
  perf_event_read(e, cv, sizeof cv);
  CHECK_EQ_U64(cv[0], 3 * 4000000 + 2577, "counting cpu-clock: counting again from sched-in");
  perf_event_close(e);
  /* A sampling cpu-clock counts the same way (Linux's count is the time on
   * the CPU whatever the mode) and samples each period of that time: none
   * for the stretch off the CPU (the hrtimer is stopped there). */
  struct perf_event_attr sclk = { .type = PERF_TYPE_SOFTWARE, .size = sizeof sclk, .sample_period = 1000000,
                                  .sample_type = PERF_SAMPLE_IP, .config = PERF_COUNT_SW_CPU_CLOCK };
  fake_time = 100000000;
  CHECK_EQ_U64(perf_event_open(c, &sclk, 1000, -1, NULL, &e), 0, "sampling cpu-clock");
  CHECK_EQ_U64(perf_event_mmap(e, 1, PHYS_PAGE), 0, "its ring");
  fake_time += 2500000;
  perf_ctx_tick(c, 0, 1000, 1000, 0x120000000, false);
  perf_event_read(e, cv, sizeof cv);
  CHECK(e->samples == 2 && cv[0] == 2500000, "sampling cpu-clock: two periods sampled, the count is the time (%llu samples, %llu ns)",
        (unsigned long long)e->samples, (unsigned long long)cv[0]);
  perf_sched_out(c, 0);
  fake_time += 10000000;
  perf_sched_in(c, 0, &task1000);
  fake_time += 100000;
  perf_ctx_tick(c, 0, 1000, 1000, 0x120000000, false);
  perf_event_read(e, cv, sizeof cv);
  CHECK(e->samples == 2 && cv[0] == 2600000, "sampling cpu-clock: no sample for the time off the CPU (%llu samples, %llu ns)",
        (unsigned long long)e->samples, (unsigned long long)cv[0]);
  fake_time += 400000;
  perf_ctx_tick(c, 0, 1000, 1000, 0x120000000, false);
  CHECK_EQ_U64(e->samples, 3, "sampling cpu-clock: the third period of time on the CPU samples");
  perf_event_close(e);
  struct perf_event_attr pf = { .type = PERF_TYPE_SOFTWARE, .size = sizeof pf, .freq = 1,
                                .sample_freq = 1000, .config = PERF_COUNT_SW_PAGE_FAULTS,
                                .sample_type = PERF_SAMPLE_IP };
  CHECK_EQ_U64(perf_event_open(c, &pf, 1000, -1, NULL, &e), 0, "page-faults in frequency mode");
  CHECK_EQ_U64(perf_event_mmap(e, 1, PHYS_PAGE), 0, "its ring");
  for (int i = 0; i < 5; i++) perf_sw_event(c, 0, PERF_COUNT_SW_PAGE_FAULTS, 1000, 1000, 0x120000010, false);
  CHECK_EQ_U64(e->samples, 5, "frequency mode samples page faults (period 1 until the tick adjusts it)");
  perf_event_close(e);
  perf_ctx_destroy(c);

  /* Throttling: more than max_sample_rate / HZ interrupts in a tick. */
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true, .max_sample_rate = 1000, .hz = 100 };
  c = perf_ctx_create(&sys, ram, clock_fn, NULL);
  perf_pmu_register(c, &fake);
  perf_sched_in(c, 0, &task1000);
  CHECK_EQ_U64(perf_event_open(c, &a, 1000, -1, NULL, &e), 0, "event for throttling");
  perf_event_mmap(e, 4, PHYS_PAGE);
  int throttled = 0;
  struct perf_event *inst = e->child[0];   /* what the driver interrupts for: the CPU's instance */
  for (int i = 0; i < 20; i++) throttled += perf_event_overflow(inst, &s);
  CHECK_EQ_U64(throttled, 1, "throttled once after 10 interrupts in a tick");
  fake_time += 20000000;
  perf_ctx_tick(c, 0, 1, 1, 0, false);
  CHECK(!inst->hw.throttled, "unthrottled at the next tick");
  perf_event_close(e);
  perf_ctx_destroy(c);
  phys_destroy(ram);
  return check_done();
}
