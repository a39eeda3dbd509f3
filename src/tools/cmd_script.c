/* `profileme script`: perf script. One line per sample in file order, fields
 * in perf's fixed order whatever the order of -F (comm, tid, cpu, time,
 * period, event, addr, data_src, weight, ip sym+off (dso), srcline, insn,
 * disasm; then our ProfileMe status names). Defaults as perf's for hardware
 * events: comm,tid,time,period,event,ip,sym,symoff,dso, plus cpu when the
 * file samples it. -D dumps every record as perf's dump mode does (file
 * offset, type, size, hex bytes, decoded fields) and decodes the ProfileMe
 * raw payload by register field and status name. */
#include "tools/callchain.h"
#include "tools/commands.h"
#include "tools/session.h"
#include "isa/disasm.h"
#include "pmu/ev67_pmu.h"
#include "util/err.h"
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum field {
  F_COMM, F_TID, F_PID, F_CPU, F_TIME, F_PERIOD, F_EVENT, F_ADDR, F_DATA_SRC, F_WEIGHT, F_IP, F_SYM,
  F_SYMOFF, F_DSO, F_SRCLINE, F_INSN, F_DISASM, F_PM, NFIELDS
};
static const char *const field_names[NFIELDS] = {
  "comm", "tid", "pid", "cpu", "time", "period", "event", "addr", "data_src", "weight", "ip", "sym",
  "symoff", "dso", "srcline", "insn", "disasm", "pmstatus"
};
/* The sample_type bit a field needs (0: none). */
static const uint64_t field_needs[NFIELDS] = {
  [F_COMM] = PERF_SAMPLE_TID, [F_TID] = PERF_SAMPLE_TID, [F_PID] = PERF_SAMPLE_TID, [F_CPU] = PERF_SAMPLE_CPU,
  [F_TIME] = PERF_SAMPLE_TIME, [F_PERIOD] = PERF_SAMPLE_PERIOD, [F_ADDR] = PERF_SAMPLE_ADDR,
  [F_DATA_SRC] = PERF_SAMPLE_DATA_SRC, [F_WEIGHT] = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
  [F_IP] = PERF_SAMPLE_IP, [F_PM] = PERF_SAMPLE_RAW,
};
/* perf script fields we do not produce (accepted names, refused politely). */
static const char *const perf_only[] = {
  "trace", "dsoff", "iregs", "uregs", "brstack", "brstacksym", "flags", "bpf-output", "brstackinsn",
  "brstackinsnlen", "brstackoff", "callindent", "insnlen", "synth", "phys_addr", "metric", "misc",
  "srccode", "ipc", "data_page_size", "code_page_size", "ins_lat", "machine_pid", "vcpu", "cgroup",
  "retire_lat", "brcntr", "brstackdisasm", NULL
};

#define MAX_LIST 64

struct script {
  bool on[NFIELDS];
  bool add[NFIELDS], del[NFIELDS];  /* +FIELD / -FIELD edits of the defaults */
  bool user_set, dump;
  int name_width;
  int data_src_width;
  char *comms[MAX_LIST], *pids[MAX_LIST], *tids[MAX_LIST];
  size_t ncomms, npids, ntids;
  /* call chains, printed under each sample as perf script does */
  bool chains;
  struct cc_unwinder uw;
  struct cc_frames frames;
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme script [-i FILE] [-F FIELDS] [-D] [FILTERS]\n"
    "Lists the samples of a perf.data file like perf script, one line each:\n"
    "  comm tid [cpu] time: period event: ip sym+off (dso)\n"
    "  -i, --input FILE       perf.data file (default: perf.data)\n"
    "  -F, --fields LIST      comma list of comm, tid, pid, cpu, time, period, event,\n"
    "                         addr, data_src, weight, ip, sym, symoff, dso, srcline,\n"
    "                         insn (bytes), disasm, pmstatus (ProfileMe status names);\n"
    "                         +FIELD / -FIELD edit the default list\n"
    "  -D, --dump-raw-trace   dump every record (offset, type, size, bytes, fields)\n"
    "                         and decode ProfileMe raw data (PMPC, I_STAT, PCTR_CTL)\n"
    "      --comms LIST, --pid LIST, --tid LIST   only these samples\n"
    "      --symfs DIR        look for the recorded files under DIR\n"
    "Exit status: 0 success, 1 unreadable or malformed input, 2 bad options.\n");
}

static int find_field(const char *name)
{
  for (int i = 0; i < NFIELDS; i++)
    if (!strcmp(name, field_names[i])) return i;
  return -1;
}

/* Parses -F. Returns 0 or 2 (message printed). */
static int parse_fields(struct script *sc, char *arg)
{
  char *list[NFIELDS * 2];
  bool edit = arg[0] == '+' || arg[0] == '-';
  size_t n = split_list(arg, list, NFIELDS * 2);
  if (!edit) sc->user_set = true;
  for (size_t i = 0; i < n; i++) {
    char *name = list[i];
    char op = edit && (name[0] == '+' || name[0] == '-') ? *name++ : '+';
    char *colon = strchr(name, ':');    /* "hw:ip" style event-class prefixes apply to all */
    if (colon) name = colon + 1;
    int f = find_field(name);
    if (f < 0) {
      for (size_t j = 0; perf_only[j]; j++)
        if (!strcmp(name, perf_only[j])) {
          fprintf(stderr, "profileme script: field '%s' is not supported\n", name);
          return 2;
        }
      fprintf(stderr, "profileme script: invalid field '%s'\n", name);
      return 2;
    }
    if (!edit) sc->on[f] = true;
    else if (op == '+') sc->add[f] = true;
    else sc->del[f] = true;
  }
  return 0;
}

/* Defaults for the file: perf's hardware-event set, cpu only when sampled. */
static void default_fields(struct script *sc, const struct session *s)
{
  if (sc->user_set) return;
  static const enum field def[] = { F_COMM, F_TID, F_TIME, F_PERIOD, F_EVENT, F_IP, F_SYM, F_SYMOFF, F_DSO };
  for (size_t i = 0; i < sizeof def / sizeof def[0]; i++) sc->on[def[i]] = true;
  for (size_t i = 0; i < pd_reader_nevents(s->r); i++)
    if (pd_reader_event(s->r, i)->attr.sample_type & PERF_SAMPLE_CPU) sc->on[F_CPU] = true;
  for (int f = 0; f < NFIELDS; f++) sc->on[f] = (sc->on[f] || sc->add[f]) && !sc->del[f];
}

/* A user-chosen field no event samples is an error, as in perf. */
static int check_fields(const struct script *sc, const struct session *s)
{
  for (int f = 0; f < NFIELDS; f++) {
    if (!sc->on[f] || !field_needs[f]) continue;
    bool any = false;
    for (size_t i = 0; i < pd_reader_nevents(s->r); i++)
      if (pd_reader_event(s->r, i)->attr.sample_type & field_needs[f]) any = true;
    if (!any && pd_reader_nevents(s->r)) {
      fprintf(stderr, "profileme script: samples in %s do not have the %s field (not recorded)\n",
              s->path, field_names[f]);
      return 1;
    }
  }
  return 0;
}

static void print_sym(const struct script *sc, const struct pd_sample *smp, const struct sym_loc *loc)
{
  putchar(' ');
  if (sc->on[F_IP]) printf("%16" PRIx64, smp->ip);
  if (sc->on[F_SYM]) {
    putchar(' ');
    if (!loc->sym) printf("[unknown]");
    else if (sc->on[F_SYMOFF]) printf("%s+0x%" PRIx64, loc->sym->name, loc->vaddr - loc->sym->start);
    else printf("%s", loc->sym->name);
  }
  if (sc->on[F_DSO]) printf(" (%s)", loc->dso ? loc->dso->path : "[unknown]");
  const char *file;
  unsigned line;
  if (sc->on[F_SRCLINE] && loc->dso && sym_dso_srcline(loc->dso, loc->vaddr, &file, &line)) {
    const char *base = strrchr(file, '/');
    printf("\n  %s:%u", base ? base + 1 : file, line);
  }
}

static void print_insn(const struct script *sc, const struct sym_loc *loc, uint64_t ip)
{
  uint32_t w;
  if (!loc->dso || !sym_dso_insn(loc->dso, loc->vaddr, &w)) return;
  if (sc->on[F_INSN])
    printf(" insn: %02x %02x %02x %02x", w & 0xff, w >> 8 & 0xff, w >> 16 & 0xff, w >> 24);
  if (sc->on[F_DISASM]) {
    struct axp_insn d = axp_decode(w);
    char text[256];
    axp_disasm(&d, ip, text, sizeof text);
    for (char *p = text; *p; p++)
      if (*p == '\t') *p = ' ';
    printf("\t\t%s", text);
  }
}

static void print_pm_status(const struct pd_sample *smp)
{
  struct pm_raw_v1 raw;
  if (!session_pm_raw(smp, &raw)) return;
  printf(" ");
  bool any = false;
  for (int i = 0; i < PM_NSTATUS; i++)
    if (raw.status & (1ull << i)) printf("%s%s", any ? "," : "", pm_status_names[i]), any = true;
  if (!any) printf("-");
}

/* perf's sample__fprintf_callchain: a line per frame, "\t    ADDR SYM+OFF (DSO)",
 * the outermost 127 (perf's scripting_max_stack). */
static void print_chain(struct script *sc, struct session *s, const struct pd_sample *smp)
{
  if (cc_sample_frames(s, smp, sc->uw.unwind ? &sc->uw : NULL, &sc->frames)) return;
  for (size_t i = 0; i < sc->frames.n && i < 127; i++) {
    const struct cc_frame *f = &sc->frames.f[i];
    struct sym_loc loc;
    sym_resolve(s->m, smp->pid, f->cpumode, f->ip, &loc);
    putchar('\t');
    if (sc->on[F_IP]) printf("%16" PRIx64, loc.map ? loc.addr : f->ip);   /* the map-relative address, as perf prints it */
    if (sc->on[F_SYM]) {
      if (!loc.sym) printf(" [unknown]");
      else if (sc->on[F_SYMOFF]) printf(" %s+0x%" PRIx64, loc.sym->name, loc.vaddr - loc.sym->start);
      else printf(" %s", loc.sym->name);
    }
    if (sc->on[F_DSO]) printf(" (%s)", loc.dso ? loc.dso->path : "[unknown]");
    putchar('\n');
  }
}

static void print_line(struct script *sc, struct session *s, const struct pd_sample *smp, const struct sym_loc *loc)
{
  bool chain = sc->chains && sc->on[F_IP];
  if (sc->on[F_COMM]) printf(chain ? "%s " : "%16s ", sym_comm(s->m, smp->pid, smp->tid));
  if (sc->on[F_PID] && sc->on[F_TID]) printf("%5d/%-5d ", (int32_t)smp->pid, (int32_t)smp->tid);
  else if (sc->on[F_PID]) printf("%5d ", (int32_t)smp->pid);
  else if (sc->on[F_TID]) printf("%5d ", (int32_t)smp->tid);
  if (sc->on[F_CPU]) printf("[%03d] ", smp->sample_type & PERF_SAMPLE_CPU ? (int32_t)smp->cpu : -1);
  if (sc->on[F_TIME]) {
    char t[48];
    snprintf(t, sizeof t, "%" PRIu64 ".%06" PRIu64, smp->time / 1000000000, smp->time % 1000000000 / 1000);
    printf("%12s: ", t);
  }
  if (sc->on[F_PERIOD]) printf("%10" PRIu64 " ", smp->period);
  if (sc->on[F_EVENT]) printf("%*s: ", sc->name_width, smp->event->name);
  if (sc->on[F_ADDR]) printf("%16" PRIx64, smp->addr);
  if (sc->on[F_DATA_SRC]) {
    uint64_t ds = smp->sample_type & PERF_SAMPLE_DATA_SRC ? smp->data_src : 0x5080021;
    char info[256], out[300];
    mem_info_str(ds, info, sizeof info);
    int len = snprintf(out, sizeof out, "%16" PRIx64 " %s", ds, info);
    if (len > sc->data_src_width) sc->data_src_width = len;
    printf("%-*s", sc->data_src_width, out);
  }
  if (sc->on[F_WEIGHT]) printf("%16" PRIu64, smp->weight);
  if (chain) {
    putchar('\n');
    print_chain(sc, s, smp);
  } else if (sc->on[F_IP] || sc->on[F_SYM] || sc->on[F_DSO]) {
    print_sym(sc, smp, loc);
  }
  if (sc->on[F_INSN] || sc->on[F_DISASM]) print_insn(sc, loc, smp->ip);
  if (sc->on[F_PM]) print_pm_status(smp);
  putchar('\n');
}

/* ---- dump mode ---- */

/* perf's trace_event(): the record's bytes, 16 a line, hex then ASCII. */
static void hex_dump(const struct perf_event_header *h)
{
  const uint8_t *b = (const uint8_t *)h;
  printf(".\n. ... raw event: size %u bytes\n", h->size);
  for (unsigned off = 0; off < h->size; off += 16) {
    printf(".  %04x: ", off);
    for (unsigned i = 0; i < 16; i++)
      if (off + i < h->size) printf(" %02x", b[off + i]);
      else printf("   ");
    printf("  ");
    for (unsigned i = 0; i < 16; i++)
      putchar(off + i < h->size ? (isprint(b[off + i]) ? b[off + i] : '.') : ' ');
    putchar('\n');
  }
  putchar('\n');
}

static uint32_t u32_at(const struct perf_event_header *h, size_t off)
{
  uint32_t v = 0;
  if (off + 4 <= h->size) memcpy(&v, (const char *)h + off, 4);
  return v;
}

static uint64_t u64_at(const struct perf_event_header *h, size_t off)
{
  uint64_t v = 0;
  if (off + 8 <= h->size) memcpy(&v, (const char *)h + off, 8);
  return v;
}

/* A NUL-terminated string of the record at off, or "". */
static const char *str_at(const struct perf_event_header *h, size_t off)
{
  const char *s = (const char *)h + off;
  return off < h->size && memchr(s, 0, h->size - off) ? s : "";
}

static void dump_mmap(const struct perf_event_header *h, bool v2)
{
  printf(" %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int32_t)u32_at(h, 8), (int32_t)u32_at(h, 12),
         u64_at(h, 16), u64_at(h, 24), u64_at(h, 32));
  if (!v2) {
    printf("]: %c %s\n", h->misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x', str_at(h, 40));
    return;
  }
  if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    uint8_t n = h->size > 40 ? ((const uint8_t *)h)[40] : 0;
    printf(" <");
    for (unsigned i = 0; i < n && i < 20; i++) printf("%02x", ((const uint8_t *)h)[44 + i]);
    printf(">");
  } else {
    printf(" %02x:%02x %" PRIu64 " %" PRIu64, u32_at(h, 40), u32_at(h, 44), u64_at(h, 48), u64_at(h, 56));
  }
  uint32_t prot = u32_at(h, 64), flags = u32_at(h, 68);
  printf("]: %c%c%c%c %s\n", prot & 1 ? 'r' : '-', prot & 2 ? 'w' : '-', prot & 4 ? 'x' : '-',
         flags & 1 ? 's' : 'p', str_at(h, 72));
}

/* The time stamp perf puts before a record name: cpu and time when the
 * file's (first) event samples them, from the sample or the trailer. */
static void dump_tstamp(struct session *s, const struct session_rec *r)
{
  const struct pd_event *first = pd_reader_event(s->r, 0);
  uint64_t st = first ? first->attr.sample_type : 0;
  uint64_t time = 0;
  uint32_t cpu = 0;
  if (r->sample) {
    time = r->sample->time;
    cpu = r->sample->cpu;
  } else if (!first || !first->attr.sample_id_all) {
    printf("-1 -1 ");
    return;
  } else {
    struct session_id id;
    if (session_record_id(s, r->h, &id)) time = id.time, cpu = id.cpu;
  }
  if (st & PERF_SAMPLE_CPU) printf("%u ", cpu);
  if (st & PERF_SAMPLE_TIME) printf("%" PRIu64 " ", time);
}

/* I_STAT TRAP_TYPE names (HRM Table 5-12); 1, 9, 11, 13 are "invalid". */
static const char *const trap_names[16] = {
  "replay", "mispredict", "dtb_double3", "dtb_double4", "fp_disabled", "unaligned", "dtb_miss",
  "dstream_fault", "opcdec", "iacv", "mchk", "itb_miss", "arith", "interrupt", "mt_fpcr", "reset"
};

static void dump_pm(const struct pd_sample *smp)
{
  struct pm_raw_v1 raw;
  if (!(smp->sample_type & PERF_SAMPLE_RAW)) return;
  if (!session_pm_raw(smp, &raw)) {
    printf(" ... raw: %u bytes (not a ProfileMe v%d payload)\n", smp->raw_size, PM_RAW_VERSION);
    return;
  }
  uint64_t is = raw.i_stat, c = raw.pctr_ctl;
  unsigned tt = (unsigned)(is >> EV67_I_STAT_TT_SHIFT) & 0xF;
  printf(" ... ProfileMe raw v%u: %u bytes\n", raw.version, smp->raw_size);
  printf(" ...... pmpc:     %#018" PRIx64 "\n", raw.pmpc);
  bool trp = is & EV67_I_STAT_TRP;
  printf(" ...... i_stat:   %#018" PRIx64 " MIS %d TRP %d LSO %d TRAP_TYPE %u%s%s ICM %d OVR %u\n", is,
         !!(is & EV67_I_STAT_MIS), trp, !!(is & EV67_I_STAT_LSO), tt, trp ? "=" : "", trp ? trap_names[tt] : "",
         !!(is & EV67_I_STAT_ICM), (unsigned)(is >> EV67_I_STAT_OVR_SHIFT) & 7);
  printf(" ...... pctr_ctl: %#018" PRIx64 " PCTR0 %u PM_STALLED %d PM_KILLED_BM %d PCTR1 %u SL0 %d SL1 %u VAL %d TAK %d\n",
         c, (unsigned)(c >> EV67_PCTR0_SHIFT) & EV67_PCTR_MASK, !!(c & EV67_PCTR_PM_STALLED),
         !!(c & EV67_PCTR_PM_KILLED_BM), (unsigned)(c >> EV67_PCTR1_SHIFT) & EV67_PCTR_MASK, !!(c & EV67_PCTR_SL0),
         (unsigned)(c >> EV67_PCTR_SL1_SHIFT) & 3, !!(c & EV67_PCTR_VAL), !!(c & EV67_PCTR_TAK));
  printf(" ...... status:   %#018" PRIx64 "", raw.status);
  for (int i = 0; i < PM_NSTATUS; i++)
    if (raw.status & (1ull << i)) printf(" %s", pm_status_names[i]);
  if (raw.status & PM_ST_TRAP) printf(" trap_type=%s", trap_names[PM_ST_TRAP_TYPE(raw.status)]);
  printf("\n ...... pctr0: %" PRIu64 "  pctr1: %" PRIu64 "\n", raw.pctr0, raw.pctr1);
}

static void dump_sample(struct script *sc, struct session *s, const struct session_rec *r)
{
  const struct pd_sample *smp = r->sample;
  printf("(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n", r->h->misc,
         (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, smp->period, smp->addr);
  if (smp->sample_type & PERF_SAMPLE_CALLCHAIN) {
    printf("... FP chain: nr:%" PRIu64 "\n", smp->callchain_nr);
    for (uint64_t i = 0; i < smp->callchain_nr; i++) printf(".....  %2" PRIu64 ": %016" PRIx64 "\n", i, smp->callchain[i]);
  }
  if (smp->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) printf("... weight: %" PRIu64 "\n", smp->weight);
  if (smp->sample_type & PERF_SAMPLE_DATA_SRC) printf(" . data_src: 0x%" PRIx64 "\n", smp->data_src);
  dump_pm(smp);
  printf(" ... thread: %s:%d\n ...... dso: %s\n", sym_comm(s->m, smp->pid, smp->tid), (int32_t)smp->tid,
         r->loc.dso ? r->loc.dso->path : "[unknown]");
  print_line(sc, s, smp, &r->loc);
}

static void dump_record(struct script *sc, struct session *s, const struct session_rec *r)
{
  const struct perf_event_header *h = r->h;
  const char *name = session_record_name(h->type);
  printf("\n%#" PRIx64 "@%s [%#x]: event: %u\n", r->offset, s->path, h->size, h->type);
  hex_dump(h);
  dump_tstamp(s, r);
  printf("%#" PRIx64 " [%#x]: PERF_RECORD_%s", r->offset, h->size, name ? name : "UNKNOWN");
  switch (h->type) {
  case PERF_RECORD_SAMPLE: dump_sample(sc, s, r); break;
  case PERF_RECORD_MMAP: dump_mmap(h, false); break;
  case PERF_RECORD_MMAP2: dump_mmap(h, true); break;
  case PERF_RECORD_COMM:
    printf("%s: %s:%d/%d\n", h->misc & PERF_RECORD_MISC_COMM_EXEC ? " exec" : "", str_at(h, 16),
           (int32_t)u32_at(h, 8), (int32_t)u32_at(h, 12));
    break;
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
    printf("(%d:%d):(%d:%d)\n", (int32_t)u32_at(h, 8), (int32_t)u32_at(h, 16), (int32_t)u32_at(h, 12),
           (int32_t)u32_at(h, 20));
    break;
  case PERF_RECORD_LOST: printf(": id:%" PRIu64 ": lost:%" PRIu64 "\n", u64_at(h, 8), u64_at(h, 16)); break;
  case PERF_RECORD_LOST_SAMPLES: {
    struct session_id id;
    session_record_id(s, h, &id);
    printf(": id:%" PRIu64 ": lost samples :%" PRIu64 "\n", id.id, u64_at(h, 8));
    break;
  }
  case PERF_RECORD_THROTTLE:
  case PERF_RECORD_UNTHROTTLE:
    printf(": time %" PRIu64 " id %" PRIu64 " stream_id %" PRIu64 "\n", u64_at(h, 8), u64_at(h, 16), u64_at(h, 24));
    break;
  default:
    printf(name && h->type >= 64 && h->type != 82 ? "\n" : ": unhandled!\n");
    break;
  }
}

/* ---- the pass ---- */

static bool wanted(const struct script *sc, struct session *s, const struct pd_sample *smp)
{
  return in_list(sc->comms, sc->ncomms, sym_comm(s->m, smp->pid, smp->tid)) &&
         in_num_list(sc->pids, sc->npids, smp->pid) && in_num_list(sc->tids, sc->ntids, smp->tid);
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct script *sc = ctx;
  if (sc->dump) dump_record(sc, s, r);
  else if (r->sample && wanted(sc, s, r->sample)) print_line(sc, s, r->sample, &r->loc);
  return 0;
}

int cmd_script(int argc, char **argv)
{
  enum { O_COMMS = 256, O_PID, O_TID, O_SYMFS };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "fields", required_argument, NULL, 'F' },
    { "dump-raw-trace", no_argument, NULL, 'D' }, { "comms", required_argument, NULL, O_COMMS },
    { "comm", required_argument, NULL, O_COMMS }, { "pid", required_argument, NULL, O_PID },
    { "tid", required_argument, NULL, O_TID }, { "symfs", required_argument, NULL, O_SYMFS },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  struct script sc = { .user_set = false };
  const char *input = NULL, *symfs = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:F:Dh", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case 'F': if (parse_fields(&sc, optarg)) return 2; break;
    case 'D': sc.dump = true; break;
    case O_COMMS: sc.ncomms = split_list(optarg, sc.comms, MAX_LIST); break;
    case O_PID: sc.npids = split_list(optarg, sc.pids, MAX_LIST); break;
    case O_TID: sc.ntids = split_list(optarg, sc.tids, MAX_LIST); break;
    case O_SYMFS: symfs = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "profileme script: unexpected argument '%s' (scripts are not supported)\n", argv[optind]);
    return 2;
  }
  struct session s;
  if (session_open(&s, input, symfs)) {
    fprintf(stderr, "profileme script: %s\n", s.err);
    return 1;
  }
  default_fields(&sc, &s);
  s.file_order = sc.dump;        /* perf script -D dumps records as they are stored */
  bool dwarf;
  sc.chains = cc_file_has_chains(&s, &dwarf) && !sc.dump;
  if (sc.chains && dwarf) cc_unwinder_for(&s, &sc.uw);
  int rc = sc.user_set ? check_fields(&sc, &s) : 0;
  if (!rc) {
    sc.name_width = (int)session_max_name(&s);
    if (session_run(&s, on_record, &sc)) {
      fflush(stdout);
      fprintf(stderr, "profileme script: %s: %s\n", s.path, s.err);
      rc = 1;
    }
  }
  cc_frames_free(&sc.frames);
  cc_unwinder_release(&sc.uw);
  session_close(&s);
  return rc;
}
