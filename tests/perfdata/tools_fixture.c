/* Writes the perf.data fixture of tests/scripts/tools.sh with the perfdata
 * writer, and the answers the analysis commands must find in it.
 *
 *   tools_fixture ALPHA_PROG OUT.data ANSWERS
 *
 * ALPHA_PROG is tests/perfdata/tools_hot.c built static for Alpha; the
 * fixture's samples sit on its instructions: in hot_loop the loop's load, its
 * store, its backward conditional branch and the add after the load; the
 * first instructions of cold (run by a second thread) and main; two kernel
 * functions. Event 0 ("cycles:p", period 1000) carries ProfileMe raw data,
 * data sources, data addresses in `buf` and weights; event 1
 * ("instructions", period 2000) is plain. Every count below is chosen so
 * that the shares are round numbers (200 ProfileMe samples, 50 plain ones).
 *
 * ANSWERS gets one line per fact, independent of the tools' code:
 *   pc NAME 0xPC                       the instructions chosen
 *   insn 0xPC samples retired killed mispredict trap dtb_miss unaligned
 *        valid map_stall nyp ldstorder early_kill late_kill taken
 *   data buf 0xADDR                    the data symbol
 *   mem OP LEVEL TLB SAMPLES WEIGHT    ProfileMe samples of a data source:
 *        OP LOAD/STORE, LEVEL L1/L2/RAM, TLB hit/miss, WEIGHT their sum */
#include "guest/kimage.h"
#include "isa/isa.h"
#include "perfdata/perfdata.h"
#include "uapi/pm_raw.h"
#include "pmu/ev67_pmu.h"
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 4242
#define TID2 4243
#define ID_PM 101
#define ID_INSN 102

struct prog {
  uint64_t hot, hot_size, cold, main, buf;
  uint64_t seg_vaddr, seg_off, seg_size;
  uint64_t load, store, branch, other;
};

/* A group of identical ProfileMe samples. */
struct group {
  const char *what;       /* which pc: "load", "store", ... */
  int n;
  uint64_t status;
  uint64_t data_src;
  uint64_t weight;
  int tid;
};

#define DS(op, lvl, lvlnum, tlb) \
  (((uint64_t)(op) << PERF_MEM_OP_SHIFT) | ((uint64_t)(lvl) << PERF_MEM_LVL_SHIFT) | \
   ((uint64_t)PERF_MEM_SNOOP_NA << PERF_MEM_SNOOP_SHIFT) | ((uint64_t)PERF_MEM_LOCK_NA << PERF_MEM_LOCK_SHIFT) | \
   ((uint64_t)(tlb) << PERF_MEM_TLB_SHIFT) | ((uint64_t)(lvlnum) << PERF_MEM_LVLNUM_SHIFT))
#define NA_DS 0x1e05080021ull
#define L1HIT (PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT)
#define L2HIT (PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT)
#define RAMHIT (PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT)
#define TLBHIT (PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT)
#define TLBMISS (PERF_MEM_TLB_L1 | PERF_MEM_TLB_MISS)
#define R (PM_ST_RETIRED)
#define V (PM_ST_RETIRED | PM_ST_VALID)
#define TT(n) ((uint64_t)(n) << 32)

static const struct group groups[] = {
  { "load", 40, V, DS(PERF_MEM_OP_LOAD, L1HIT, PERF_MEM_LVLNUM_L1, TLBHIT), 4, PID },
  { "load", 10, PM_ST_TRAP | PM_ST_DTB_MISS | TT(6), DS(PERF_MEM_OP_LOAD, RAMHIT, PERF_MEM_LVLNUM_RAM, TLBMISS), 150, PID },
  { "load", 6, PM_ST_LATE_KILL, DS(PERF_MEM_OP_LOAD, L2HIT, PERF_MEM_LVLNUM_L2, TLBHIT), 20, PID },
  { "load", 4, PM_ST_TRAP | PM_ST_LDSTORDER | PM_ST_REPLAY | TT(0), DS(PERF_MEM_OP_LOAD, L1HIT, PERF_MEM_LVLNUM_L1, TLBHIT), 6, PID },
  { "branch", 25, V | PM_ST_TAKEN, NA_DS, 1, PID },
  { "branch", 10, R | PM_ST_TRAP | PM_ST_MISPREDICT | TT(1), NA_DS, 9, PID },
  { "branch", 5, PM_ST_EARLY_KILL | PM_ST_MAP_STALL, NA_DS, 1, PID },
  { "other", 20, V, NA_DS, 1, PID },
  { "other", 6, V | PM_ST_NYP, NA_DS, 12, PID },
  { "other", 4, PM_ST_LATE_KILL, NA_DS, 1, PID },
  { "store", 12, V, DS(PERF_MEM_OP_STORE, L1HIT, PERF_MEM_LVLNUM_L1, TLBHIT), 2, PID },
  { "store", 8, PM_ST_TRAP | PM_ST_UNALIGNED | TT(5), DS(PERF_MEM_OP_STORE, L2HIT, PERF_MEM_LVLNUM_L2, TLBHIT), 30, PID },
  { "cold", 30, V, NA_DS, 1, TID2 },
  { "main", 10, V, NA_DS, 1, PID },
  { "entSys", 6, V | PM_ST_KERNEL, NA_DS, 1, PID },
  { "do_page_fault", 4, V | PM_ST_KERNEL, NA_DS, 1, PID },
};
#define NGROUPS (sizeof groups / sizeof groups[0])

/* Plain samples of event 1: where and how many. */
static const struct { const char *what; int n; } plain[] = { { "load", 20 }, { "branch", 20 }, { "main", 10 } };

static int die(const char *what)
{
  fprintf(stderr, "tools_fixture: %s\n", what);
  return 1;
}

/* Finds symbols, the text segment and the four loop instructions. */
static int read_prog(const char *path, struct prog *p)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0) return die("cannot open the Alpha program");
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  GElf_Shdr sh;
  Elf_Scn *scn = NULL;
  while (elf && (scn = elf_nextscn(elf, scn)))
    if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) break;
  if (!scn) return die("no symbol table");
  Elf_Data *d = elf_getdata(scn, NULL);
  for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
    GElf_Sym s;
    gelf_getsym(d, (int)i, &s);
    const char *n = elf_strptr(elf, sh.sh_link, s.st_name);
    if (!strcmp(n, "hot_loop")) p->hot = s.st_value, p->hot_size = s.st_size;
    if (!strcmp(n, "cold")) p->cold = s.st_value;
    if (!strcmp(n, "main")) p->main = s.st_value;
    if (!strcmp(n, "buf")) p->buf = s.st_value;
  }
  GElf_Phdr ph;
  for (int i = 0; gelf_getphdr(elf, i, &ph); i++)
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      p->seg_vaddr = ph.p_vaddr, p->seg_off = ph.p_offset, p->seg_size = ph.p_memsz;
      break;
    }
  size_t size;
  const uint8_t *img = (const uint8_t *)elf_rawfile(elf, &size);
  for (uint64_t pc = p->hot; img && pc < p->hot + p->hot_size; pc += 4) {
    uint32_t w;
    memcpy(&w, img + p->seg_off + (pc - p->seg_vaddr), 4);
    struct axp_insn in = axp_decode(w);
    unsigned cls = axp_info[in.id].cls;
    if (cls == AXP_CLS_ILD && !p->load) p->load = pc;
    else if (cls == AXP_CLS_IST && !p->store) p->store = pc;
    else if (cls == AXP_CLS_IBR && in.imm < 0) p->branch = pc;
    else if (cls == AXP_CLS_IADD && p->load && !p->other) p->other = pc;
  }
  elf_end(elf);
  close(fd);
  if (!p->hot || !p->cold || !p->main || !p->buf || !p->load || !p->store || !p->branch || !p->other)
    return die("the program does not have the expected shape");
  return 0;
}

static uint64_t pc_of(const struct prog *p, const char *what)
{
  if (!strcmp(what, "load")) return p->load;
  if (!strcmp(what, "store")) return p->store;
  if (!strcmp(what, "branch")) return p->branch;
  if (!strcmp(what, "other")) return p->other;
  if (!strcmp(what, "cold")) return p->cold;
  if (!strcmp(what, "main")) return p->main;
  size_t n;
  const struct ksym *k = kimage_symbols(&n);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(k[i].name, what)) return k[i].addr + 8;
  return 0;
}

/* ---- records ---- */

struct rec { uint8_t b[512]; size_t n; };

static void put(struct rec *r, const void *v, size_t len) { memcpy(r->b + r->n, v, len); r->n += len; }
static void put64(struct rec *r, uint64_t v) { put(r, &v, 8); }
static void put32x2(struct rec *r, uint32_t a, uint32_t b) { put(r, &a, 4); put(r, &b, 4); }
static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
  memset(r, 0, sizeof *r);
  struct perf_event_header h = { type, misc, 0 };
  put(r, &h, sizeof h);
}
static void put_str(struct rec *r, const char *s)
{
  size_t l = strlen(s) + 1;
  put(r, s, l);
  r->n = (r->n + 7) & ~(size_t)7;
}
/* sample_id trailer of event 0: TID, TIME, CPU, IDENTIFIER. */
static void trailer(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
  put32x2(r, pid, tid);
  put64(r, time);
  put32x2(r, 0, 0);
  put64(r, ID_PM);
}
static int emit(struct pd_writer *w, struct rec *r)
{
  struct perf_event_header *h = (struct perf_event_header *)r->b;
  h->size = (uint16_t)r->n;
  return pd_writer_record(w, h);
}

/* The registers behind a status word (for -D to decode). */
static void registers(const struct group *g, uint64_t pc, struct pm_raw_v1 *raw)
{
  uint64_t st = g->status;
  uint64_t i_stat = (2ull << EV67_I_STAT_OVR_SHIFT) | ((uint64_t)PM_ST_TRAP_TYPE(st) << EV67_I_STAT_TT_SHIFT);
  if (st & PM_ST_MISPREDICT) i_stat |= EV67_I_STAT_MIS;
  if (st & PM_ST_TRAP) i_stat |= EV67_I_STAT_TRP;
  if (st & PM_ST_LDSTORDER) i_stat |= EV67_I_STAT_LSO;
  if (st & PM_ST_NYP) i_stat |= EV67_I_STAT_ICM;
  uint64_t ctl = EV67_PCTR_SL0 | (52ull << EV67_PCTR0_SHIFT) | (g->weight << EV67_PCTR1_SHIFT);
  if (st & PM_ST_RETIRED) ctl |= EV67_PCTR_VAL;
  if (st & PM_ST_TAKEN) ctl |= EV67_PCTR_TAK;
  if (st & PM_ST_MAP_STALL) ctl |= EV67_PCTR_PM_STALLED;
  if (st & PM_ST_EARLY_KILL) ctl |= EV67_PCTR_PM_KILLED_BM;
  *raw = (struct pm_raw_v1){ PM_RAW_VERSION, pc, i_stat, ctl, st, 50, g->weight };
}

static int pm_sample(struct pd_writer *w, const struct prog *p, const struct group *g, int k, uint64_t time)
{
  struct rec r;
  uint64_t pc = pc_of(p, g->what);
  bool kernel = g->status & PM_ST_KERNEL;
  bool mem = g->data_src != NA_DS;
  begin(&r, PERF_RECORD_SAMPLE, (kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) | PERF_RECORD_MISC_EXACT_IP);
  put64(&r, ID_PM);
  put64(&r, pc);
  put32x2(&r, PID, (uint32_t)g->tid);
  put64(&r, time);
  put64(&r, mem ? p->buf + 8 * (uint64_t)(k % 32) : 0);
  put32x2(&r, 0, 0);
  put64(&r, 1000);
  struct pm_raw_v1 raw;
  registers(g, pc, &raw);
  uint32_t size = sizeof raw;
  put(&r, &size, 4);
  put(&r, &raw, sizeof raw);
  put64(&r, g->weight);
  put64(&r, g->data_src);
  return emit(w, &r);
}

static int plain_sample(struct pd_writer *w, uint64_t pc, uint64_t time)
{
  struct rec r;
  begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  put64(&r, ID_INSN);
  put64(&r, pc);
  put32x2(&r, PID, PID);
  put64(&r, time);
  put64(&r, 2000);
  return emit(w, &r);
}

static int side_band(struct pd_writer *w, const struct prog *p, const char *path)
{
  struct rec r;
  int e = 0;
  begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
  put32x2(&r, PID, PID);
  put_str(&r, "tools_hot");
  trailer(&r, PID, PID, 1000000);
  e |= emit(w, &r);
  uint64_t start = p->seg_vaddr & ~0x1FFFull;
  begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
  put32x2(&r, PID, PID);
  put64(&r, start);
  put64(&r, (p->seg_vaddr + p->seg_size - start + 0x1FFF) & ~0x1FFFull);
  put64(&r, p->seg_off & ~0x1FFFull);
  put32x2(&r, 8, 1);
  put64(&r, 12345);
  put64(&r, 0);
  put32x2(&r, 5, 2);   /* PROT_READ|PROT_EXEC, MAP_PRIVATE */
  put_str(&r, path);
  trailer(&r, PID, PID, 1000100);
  e |= emit(w, &r);
  begin(&r, PERF_RECORD_FORK, 0);
  put32x2(&r, PID, PID);
  put32x2(&r, TID2, PID);
  put64(&r, 1000200);
  trailer(&r, PID, TID2, 1000200);
  e |= emit(w, &r);
  return e;
}

static int write_fixture(const char *out, const struct prog *p, const char *path)
{
  int err;
  struct pd_writer *w = pd_writer_create(out, &err);
  if (!w) return die("cannot create the output");
  struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = sizeof a, .config = PERF_COUNT_HW_CPU_CYCLES,
    .sample_period = 1000, .precise_ip = 2, .sample_id_all = 1, .mmap = 1, .comm = 1, .task = 1, .mmap2 = 1,
    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                   PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW |
                   PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC };
  struct perf_event_attr b = { .type = PERF_TYPE_HARDWARE, .size = sizeof b, .config = PERF_COUNT_HW_INSTRUCTIONS,
    .sample_period = 2000, .sample_id_all = 1,
    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD };
  uint64_t ida = ID_PM, idb = ID_INSN;
  char *argv[] = { "profileme", "record", "./tools_hot", NULL };
  struct pd_env env = { .hostname = "fixture", .os_release = "6.1.0-alpha", .version = "profileme fixture",
                        .arch = "alpha", .cpudesc = "EV67", .nr_cpus_avail = 1, .nr_cpus_online = 1,
                        .argc = 3, .argv = argv };
  if (pd_writer_add_event(w, &a, "cycles:p", &ida, 1) || pd_writer_add_event(w, &b, "instructions", &idb, 1) ||
      pd_writer_set_env(w, &env) || side_band(w, p, path))
    return die("cannot write the header or side-band records");
  uint64_t time = 2000000;
  int left[NGROUPS], any = 1, k = 0;
  for (size_t i = 0; i < NGROUPS; i++) left[i] = groups[i].n;
  int pleft[3] = { plain[0].n, plain[1].n, plain[2].n };
  while (any) {   /* interleave the groups so time runs through all of them */
    any = 0;
    for (size_t i = 0; i < NGROUPS; i++)
      if (left[i]) {
        any = 1;
        if (pm_sample(w, p, &groups[i], k++, time += 997)) return die("cannot write a sample");
        left[i]--;
      }
    for (int i = 0; i < 3; i++)
      if (pleft[i]) {
        any = 1;
        if (plain_sample(w, pc_of(p, plain[i].what), time += 13)) return die("cannot write a sample");
        pleft[i]--;
      }
  }
  struct rec r;
  begin(&r, PERF_RECORD_LOST_SAMPLES, 0);
  put64(&r, 3);
  trailer(&r, PID, PID, time + 1);
  int e = emit(w, &r);
  begin(&r, PERF_RECORD_EXIT, 0);
  put32x2(&r, PID, PID);
  put32x2(&r, PID, PID);
  put64(&r, time + 2);
  trailer(&r, PID, PID, time + 2);
  e |= emit(w, &r);
  if (e || pd_writer_close(w)) return die("cannot finish the file");
  return 0;
}

/* The answers: per-pc status counts and per-data-source sums. */
static int write_answers(const char *out, const struct prog *p)
{
  static const char *const pcs[] = { "load", "store", "branch", "other", "cold", "main", "entSys", "do_page_fault" };
  static const uint64_t cols[] = { PM_ST_RETIRED, PM_ST_EARLY_KILL | PM_ST_LATE_KILL, PM_ST_MISPREDICT, PM_ST_TRAP,
    PM_ST_DTB_MISS, PM_ST_UNALIGNED, PM_ST_VALID, PM_ST_MAP_STALL, PM_ST_NYP, PM_ST_LDSTORDER, PM_ST_EARLY_KILL,
    PM_ST_LATE_KILL, PM_ST_TAKEN };
  FILE *f = fopen(out, "w");
  if (!f) return die("cannot write the answers");
  for (size_t i = 0; i < 8; i++) fprintf(f, "pc %s 0x%" PRIx64 "\n", pcs[i], pc_of(p, pcs[i]));
  for (size_t i = 0; i < 8; i++) {
    int n = 0, c[13] = { 0 };
    for (size_t g = 0; g < NGROUPS; g++) {
      if (strcmp(groups[g].what, pcs[i])) continue;
      n += groups[g].n;
      for (size_t j = 0; j < 13; j++)
        if (groups[g].status & cols[j]) c[j] += groups[g].n;
    }
    fprintf(f, "insn 0x%" PRIx64 " %d", pc_of(p, pcs[i]), n);
    for (size_t j = 0; j < 13; j++) fprintf(f, " %d", c[j]);
    fprintf(f, "\n");
  }
  fprintf(f, "data buf 0x%" PRIx64 "\n", p->buf);
  for (size_t g = 0; g < NGROUPS; g++) {
    union perf_mem_data_src ds = { .val = groups[g].data_src };
    if (groups[g].data_src == NA_DS) continue;
    fprintf(f, "mem %s %s %s %d %" PRIu64 "\n", ds.mem_op == PERF_MEM_OP_LOAD ? "LOAD" : "STORE",
            ds.mem_lvl_num == PERF_MEM_LVLNUM_L1 ? "L1" : ds.mem_lvl_num == PERF_MEM_LVLNUM_L2 ? "L2" : "RAM",
            ds.mem_dtlb & PERF_MEM_TLB_MISS ? "miss" : "hit", groups[g].n, groups[g].weight * (uint64_t)groups[g].n);
  }
  fclose(f);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: tools_fixture ALPHA_PROG OUT.data ANSWERS\n");
    return 2;
  }
  struct prog p = { 0 };
  char *abs = realpath(argv[1], NULL);
  if (!abs) return die("cannot resolve the program's path");
  int rc = read_prog(abs, &p) || write_fixture(argv[2], &p, abs) || write_answers(argv[3], &p);
  free(abs);
  return rc;
}
