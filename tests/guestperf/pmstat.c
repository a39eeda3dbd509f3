/* ProfileMe samples of another program, taken from inside the guest as
 * `profileme record -e cpu/event=1,profileme=1/u -c 9973` takes them:
 * forks, opens the event on the child with enable_on_exec, maps its ring,
 * lets the child exec argv[1..], and prints "PC pc count" for every user PC
 * sampled, for the script to compare with record's samples of the same
 * program. Run as a normal user at paranoid 2, timed. */
#include "gp.h"
#include <sys/mman.h>
#include <sys/wait.h>

#define PAGE 8192
#define PAGES 16

struct pc { uint64_t pc, n; };

int main(int argc, char **argv)
{
  if (argc < 2) return 2;
  int go;
  pid_t pid = gp_spawn(argv + 1, &go);
  if (pid < 0) return 2;
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_RAW, 1 | 1ull << 8);   /* cpu/event=1,profileme=1/u */
  a.disabled = 1;
  a.enable_on_exec = 1;
  a.sample_period = 9973;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
  int fd = (int)gp_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  CHECK("pmstat.open", fd >= 0, "%s", strerror(errno));
  struct perf_event_mmap_page *u = mmap(NULL, (1 + PAGES) * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK("pmstat.mmap", u != MAP_FAILED, "%s", strerror(errno));
  if (fd < 0 || u == MAP_FAILED) return gp_done();
  gp_go(go);
  int st;
  waitpid(pid, &st, 0);
  static struct pc pcs[4096];
  int npc = 0;
  uint64_t n = 0, bad = 0, head = u->data_head;
  const uint8_t *data = (const uint8_t *)u + PAGE;
  __sync_synchronize();
  for (uint64_t t = u->data_tail; t < head;) {
    const struct perf_event_header *h = (const void *)(data + (t & (PAGES * PAGE - 1)));
    if (h->type == PERF_RECORD_SAMPLE) {
      uint64_t ip;
      uint32_t spid;
      memcpy(&ip, h + 1, 8);
      memcpy(&spid, (const uint8_t *)(h + 1) + 8, 4);
      n++;
      if (spid != (uint32_t)pid) bad++;
      int i = 0;
      while (i < npc && pcs[i].pc != ip) i++;
      if (i == npc && npc < 4096) pcs[npc++].pc = ip;
      if (i < npc) pcs[i].n++;
    }
    t += h->size;
  }
  CHECK("pmstat.samples", WIFEXITED(st) && n >= 100 && bad == 0 && u->data_head < PAGES * PAGE,
        "status %#x, %llu samples, %llu of another pid", st, (unsigned long long)n, (unsigned long long)bad);
  for (int i = 0; i < npc; i++) printf("PC %llx %llu\n", (unsigned long long)pcs[i].pc, (unsigned long long)pcs[i].n);
  return gp_done();
}
