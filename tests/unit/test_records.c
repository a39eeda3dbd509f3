/* perfdata/records: the side-band record views against the layouts
 * <linux/perf_event.h> describes in its comments, written here as structs
 * (perf's tools/perf/util/event.h declares the same), so a wrong offset in
 * records.c disagrees with the compiler's. */
#include "check.h"
#include "perfdata/records.h"
#include <stddef.h>
#include <string.h>

struct mmap2_rec {
  struct perf_event_header header;
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
  uint32_t maj, min;
  uint64_t ino, ino_generation;
  uint32_t prot, flags;
  char filename[40];
};
struct mmap_rec { struct perf_event_header header; uint32_t pid, tid; uint64_t addr, len, pgoff; char filename[16]; };
struct comm_rec { struct perf_event_header header; uint32_t pid, tid; char comm[16]; };
struct fork_rec { struct perf_event_header header; uint32_t pid, ppid, tid, ptid; uint64_t time; };
struct lost_rec { struct perf_event_header header; uint64_t id, lost; };

static void test_mmap(void)
{
  struct mmap2_rec r = { .header = { PERF_RECORD_MMAP2, 0, sizeof r }, .pid = 7, .tid = 8, .addr = 0x120000000,
                         .len = 0x4000, .pgoff = 0x2000, .maj = 3, .min = 4, .ino = 99, .prot = 5, .flags = 2 };
  strcpy(r.filename, "/usr/bin/x");
  struct pd_mmap_rec m;
  CHECK(pd_read_mmap(&r.header, &m), "records/mmap2 reads");
  CHECK(m.pid == 7 && m.tid == 8 && m.start == 0x120000000 && m.len == 0x4000 && m.pgoff == 0x2000,
        "records/mmap2 ids and range at the uapi offsets");
  CHECK(m.prot == 5 && m.flags == 2 && !strcmp(m.filename, "/usr/bin/x"), "records/mmap2 prot, flags, filename");
  memset(r.filename, 'a', sizeof r.filename);
  CHECK(!pd_read_mmap(&r.header, &m), "records/mmap2 without a NUL inside the record is refused");
  struct mmap_rec o = { .header = { PERF_RECORD_MMAP, 0, sizeof o }, .pid = 1, .tid = 2, .addr = 0x10, .len = 0x20,
                        .pgoff = 0x30 };
  strcpy(o.filename, "[vdso]");
  CHECK(pd_read_mmap(&o.header, &m) && m.start == 0x10 && m.pgoff == 0x30 && !m.prot && !strcmp(m.filename, "[vdso]"),
        "records/mmap (v1) reads its own layout");
  o.header.size = offsetof(struct mmap_rec, filename);
  CHECK(!pd_read_mmap(&o.header, &m), "records/mmap cut before its filename is refused");

  uint8_t buf[128];
  struct pd_mmap_rec in = { .pid = (uint32_t)-1, .start = 0xfffffc0000310000, .len = 0x1000, .pgoff = 0xfffffc0000310000,
                            .prot = 5, .flags = 2, .filename = "[kernel.kallsyms]_text" };
  size_t n = pd_build_mmap2(buf, sizeof buf, PERF_RECORD_MISC_KERNEL, &in);
  struct mmap2_rec *b = (struct mmap2_rec *)buf;
  CHECK_EQ_U64(n, offsetof(struct mmap2_rec, filename) + 24, "records/build mmap2 size: name padded to 8");
  CHECK(b->header.type == PERF_RECORD_MMAP2 && b->header.misc == PERF_RECORD_MISC_KERNEL && b->header.size == n,
        "records/build mmap2 header");
  CHECK(b->pid == (uint32_t)-1 && b->addr == in.start && b->len == 0x1000 && b->pgoff == in.pgoff && b->prot == 5 &&
        b->flags == 2 && !b->maj && !b->ino && !strcmp(b->filename, in.filename), "records/build mmap2 fields");
  CHECK(!pd_build_mmap2(buf, 80, 0, &in), "records/build mmap2 refuses a small buffer");
}

static void test_comm_task_lost(void)
{
  struct comm_rec c = { .header = { PERF_RECORD_COMM, 0, sizeof c }, .pid = 5, .tid = 6 };
  strcpy(c.comm, "lua");
  struct pd_comm_rec cm;
  CHECK(pd_read_comm(&c.header, &cm) && cm.pid == 5 && cm.tid == 6 && !strcmp(cm.comm, "lua"), "records/comm");
  c.header.size = 16;
  CHECK(!pd_read_comm(&c.header, &cm), "records/comm without its string is refused");

  struct fork_rec f = { .header = { PERF_RECORD_FORK, 0, sizeof f }, .pid = 10, .ppid = 9, .tid = 11, .ptid = 12,
                        .time = 1234 };
  struct pd_task_rec t;
  CHECK(pd_read_task(&f.header, &t) && t.pid == 10 && t.ppid == 9 && t.tid == 11 && t.ptid == 12 && t.time == 1234,
        "records/fork");
  f.header.type = PERF_RECORD_EXIT;
  f.header.size = 24;
  CHECK(pd_read_task(&f.header, &t) && t.ptid == 12 && !t.time, "records/exit without its time");
  f.header.size = 20;
  CHECK(!pd_read_task(&f.header, &t), "records/exit cut short is refused");

  struct lost_rec l = { .header = { PERF_RECORD_LOST, 0, sizeof l }, .id = 3, .lost = 44 };
  uint64_t id, lost;
  CHECK(pd_read_lost(&l.header, &id, &lost) && id == 3 && lost == 44, "records/lost");
  CHECK(!pd_read_lost_samples(&l.header, &lost), "records/lost is not lost_samples");
  uint8_t buf[64];
  size_t n = pd_build_lost_samples(buf, sizeof buf, 77);
  CHECK(n == 16 && pd_read_lost_samples((struct perf_event_header *)buf, &lost) && lost == 77, "records/lost_samples");
}

static void test_sample_id(void)
{
  uint64_t w[6];
  struct pd_sample_id s = { .pid = 1, .tid = 2, .time = 3, .id = 4, .stream_id = 5, .cpu = 6 };
  uint64_t all = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                 PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
  size_t n = pd_build_sample_id(w, sizeof w, all, &s);
  CHECK(n == 48 && w[0] == (1 | 2ull << 32) && w[1] == 3 && w[2] == 4 && w[3] == 5 && w[4] == 6 && w[5] == 4,
        "records/sample_id in the kernel's order, fields outside it ignored");
  CHECK_EQ_U64(pd_build_sample_id(w, sizeof w, PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER, &s), 16,
               "records/sample_id only what sample_type has");
  CHECK(!pd_build_sample_id(w, 8, all, &s), "records/sample_id refuses a small buffer");
}

int main(void)
{
  test_mmap();
  test_comm_task_lost();
  test_sample_id();
  return check_done();
}
