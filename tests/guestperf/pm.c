/* ProfileMe sampling from inside the guest: the cpu PMU with profileme=1
 * (format/ of /sys/bus/event_source/devices/cpu: event config:0-7,
 * profileme config:8; docs/pmu.md), as a normal user at paranoid 2 (the
 * ProfileMe path filters by mode, so exclude_kernel is allowed), samples
 * read from the mmap'd ring and their PERF_SAMPLE_RAW status decoded
 * (docs/profileme-raw.md, struct pm_raw_v1). Oracle: the loop's two
 * instructions (subq; bne taken back every iteration but the last) and
 * the RAW layout. Timed. */
#include "gp.h"
#include <sys/mman.h>

#define PAGE 8192
#define PM_CFG_PROFILEME (1ull << 8)
#define PM_ST_RETIRED (1ull << 0)
#define PM_ST_VALID (1ull << 1)
#define PM_ST_TAKEN (1ull << 6)
#define PM_ST_KERNEL (1ull << 16)

struct pm_raw_v1 {
  uint32_t version;
  uint64_t pmpc, i_stat, pctr_ctl, status, pctr0, pctr1;
} __attribute__((packed));

/* The loop at a known address: two instructions, bne at 1b + 4. */
__asm__(".text\n.align 4\n.globl pm_loop\n.ent pm_loop\npm_loop:\n.frame $30,0,$26,0\n"
        "1: subq $16, 1, $16\n bne $16, 1b\n ret $31, ($26), 1\n.end pm_loop\n");
void pm_loop(uint64_t n);

int main(void)
{
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_RAW, 1 | PM_CFG_PROFILEME);   /* cpu/event=1,profileme=1/ */
  a.disabled = 1;
  a.sample_period = 9973;   /* 67 samples per tick: under the throttle */
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
  int fd = (int)gp_open(&a, 0, -1, -1, 0);
  CHECK("pm.open", fd >= 0, "cpu/event=1,profileme=1/ as a normal user: %s", strerror(errno));
  if (fd < 0) return gp_done();
  struct perf_event_mmap_page *u = mmap(NULL, 17 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK("pm.mmap", u != MAP_FAILED, "%s", strerror(errno));
  if (u == MAP_FAILED) return gp_done();
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  pm_loop(2000000);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  const uint8_t *data = (const uint8_t *)u + PAGE;
  uint64_t head = u->data_head, n = 0, bad = 0, in_loop = 0, subq = 0, bne = 0, bne_taken = 0, subq_taken = 0,
           kernel = 0, retired = 0, weight_ok = 0, src_ok = 0, exact = 0;
  /* 6.1's include/linux/perf_event.h PERF_MEM_NA (no LVLNUM term): what
   * the driver gives a non-memory instruction */
  const uint64_t mem_na = PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) |
                          PERF_MEM_S(TLB, NA);
  uint64_t lo = (uint64_t)(uintptr_t)pm_loop;
  __sync_synchronize();
  for (uint64_t t = u->data_tail; t < head;) {
    const struct perf_event_header *h = (const void *)(data + (t & (16 * PAGE - 1)));
    if (h->type == PERF_RECORD_SAMPLE) {
      const uint8_t *p = (const uint8_t *)(h + 1);
      uint64_t ip;
      uint32_t pid, size;
      memcpy(&ip, p, 8);
      memcpy(&pid, p + 8, 4);
      memcpy(&size, p + 16, 4);
      struct pm_raw_v1 r;
      memcpy(&r, p + 20, sizeof r);
      uint64_t weight, src;   /* after RAW: WEIGHT, then DATA_SRC */
      memcpy(&weight, p + 20 + sizeof r, 8);
      memcpy(&src, p + 28 + sizeof r, 8);
      if (weight == r.pctr1) weight_ok++;
      if (src == mem_na) src_ok++;
      if (h->misc & PERF_RECORD_MISC_EXACT_IP) exact++;
      n++;
      if (size != sizeof r || r.version != 1 || r.pmpc != ip || pid != (uint32_t)getpid() ||
          (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
        bad++;
      if (r.status & PM_ST_KERNEL) kernel++;
      if (r.status & PM_ST_RETIRED) retired++;
      if (ip == lo) { in_loop++; subq++; if (r.status & PM_ST_TAKEN) subq_taken++; }
      if (ip == lo + 4) { in_loop++; bne++; if ((r.status & (PM_ST_TAKEN | PM_ST_VALID)) == (PM_ST_TAKEN | PM_ST_VALID)) bne_taken++; }
    }
    t += h->size;
  }
  u->data_tail = head;
  CHECK("pm.samples", n >= 100 && bad == 0, "%llu samples, %llu malformed (RAW size, version, pmpc = ip, mode)",
        (unsigned long long)n, (unsigned long long)bad);
  CHECK("pm.user_only", kernel == 0, "%llu kernel samples with exclude_kernel", (unsigned long long)kernel);
  CHECK("pm.in_loop", in_loop >= n * 9 / 10, "%llu of %llu samples on the loop's two instructions",
        (unsigned long long)in_loop, (unsigned long long)n);
  CHECK("pm.both_pcs", subq > in_loop / 5 && bne > in_loop / 5, "subq %llu bne %llu", (unsigned long long)subq,
        (unsigned long long)bne);
  CHECK("pm.taken", bne_taken >= bne * 95 / 100 && subq_taken == 0, "bne taken %llu of %llu, subq taken %llu",
        (unsigned long long)bne_taken, (unsigned long long)bne, (unsigned long long)subq_taken);
  CHECK("pm.retired", retired >= in_loop * 8 / 10, "%llu of %llu retired", (unsigned long long)retired,
        (unsigned long long)n);
  CHECK("pm.weight", weight_ok == n, "weight = the RAW pctr1 in %llu of %llu", (unsigned long long)weight_ok,
        (unsigned long long)n);
  CHECK("pm.data_src", src_ok == n, "data_src PERF_MEM_NA (no memory access) in %llu of %llu",
        (unsigned long long)src_ok, (unsigned long long)n);
  CHECK("pm.exact_ip", exact >= in_loop, "EXACT_IP in %llu of %llu", (unsigned long long)exact, (unsigned long long)n);
  printf("INFO pm samples %llu subq %llu bne %llu\n", (unsigned long long)n, (unsigned long long)subq,
         (unsigned long long)bne);
  return gp_done();
}
