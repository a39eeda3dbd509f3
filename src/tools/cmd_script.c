/* `profileme script`: perf script. One line per sample in file order, fields
 * in perf's fixed order whatever the order of -F (comm, tid, cpu, time,
 * period, event, addr, data_src, weight, ip sym+off (dso), srcline, insn,
 * disasm; then our ProfileMe status names). Defaults as perf's for hardware
 * events: comm,tid,time,period,event,ip,sym,symoff,dso, plus cpu when the
 * file samples it. -D dumps every record as perf's dump mode does (file
 * offset, type, size, hex bytes, decoded fields) and decodes the ProfileMe
 * raw payload by register field and status name. */
#include "analysis/callchain.h"
#include "tools/commands.h"
#include "analysis/dump.h"
#include "analysis/session.h"
#include "analysis/reg_names.h"
#include "analysis/itrace_session.h"
#include "tools/itrace_args.h"
#include "isa/disasm.h"
#include "util/err.h"
#include "util/strlist.h"
#include "analysis/datasrc.h"
#include "analysis/pm_status.h"
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum field {
  F_COMM, F_TID, F_PID, F_CPU, F_TIME, F_PERIOD, F_EVENT, F_ADDR, F_DATA_SRC, F_WEIGHT, F_IP, F_SYM,
  F_SYMOFF, F_DSO, F_SRCLINE, F_INSN, F_DISASM, F_IREGS, F_UREGS, F_PM, NFIELDS, F_REGS = NFIELDS
};
static const char *const field_names[NFIELDS] = {
  "comm", "tid", "pid", "cpu", "time", "period", "event", "addr", "data_src", "weight", "ip", "sym",
  "symoff", "dso", "srcline", "insn", "disasm", "iregs", "uregs", "pmstatus"
};
/* The sample_type bit a field needs (0: none). */
static const uint64_t field_needs[NFIELDS] = {
  [F_COMM] = PERF_SAMPLE_TID, [F_TID] = PERF_SAMPLE_TID, [F_PID] = PERF_SAMPLE_TID, [F_CPU] = PERF_SAMPLE_CPU,
  [F_TIME] = PERF_SAMPLE_TIME, [F_PERIOD] = PERF_SAMPLE_PERIOD, [F_ADDR] = PERF_SAMPLE_ADDR,
  [F_DATA_SRC] = PERF_SAMPLE_DATA_SRC, [F_WEIGHT] = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
  [F_IP] = PERF_SAMPLE_IP, [F_PM] = PERF_SAMPLE_RAW, [F_IREGS] = PERF_SAMPLE_REGS_INTR,
  [F_UREGS] = PERF_SAMPLE_REGS_USER,
};
/* perf script fields we do not produce (accepted names, refused politely). */
static const char *const perf_only[] = {
  "trace", "dsoff", "brstack", "brstacksym", "flags", "bpf-output", "brstackinsn",
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
    "                         insn (bytes), disasm, iregs, uregs (sampled registers;\n"
    "                         regs: both), pmstatus (ProfileMe status names);\n"
    "                         +FIELD / -FIELD edit the default list\n"
    "  -D, --dump-raw-trace   dump every record (offset, type, size, bytes, fields)\n"
    "                         and decode ProfileMe raw data (PMPC, I_STAT, PCTR_CTL)\n"
    "  -G, --hide-call-graph  no call chains under the samples (perf script -G)\n"
    "      --comms LIST, --pid LIST, --tid LIST   only these samples\n"
    "      --symfs DIR        look for the recorded files under DIR\n"
    "      --itrace[=OPTS]    decode the instruction trace into samples first (done\n"
    "                         with \"" ITRACE_DEFAULT_OPTS "\" when the file has one): i[PERIOD] instructions,\n"
    "                         b branches, c calls, r returns, e errors (perf's letters)\n"
    "Exit status: 0 success, 1 unreadable or malformed input, 2 bad options.\n");
}

static int find_field(const char *name)
{
  for (int i = 0; i < NFIELDS; i++)
    if (!strcmp(name, field_names[i])) return i;
  if (!strcmp(name, "regs")) return F_REGS;   /* ours: iregs and uregs */
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
    for (int k = f == F_REGS ? F_IREGS : f; k <= (f == F_REGS ? F_UREGS : f); k++) {
      if (!edit) sc->on[k] = true;
      else if (op == '+') sc->add[k] = true;
      else sc->del[k] = true;
    }
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

/* perf_sample__fprintf_regs: " ABI:2 " then "%5s:0x%lx " per register;
 * nothing when the sample has none (abi NONE). */
static void print_regs(uint64_t abi, uint64_t mask, const uint64_t *regs)
{
  if (!abi || !regs) return;
  printf(" ABI:%" PRIu64 " ", abi);
  unsigned i = 0;
  for (int r = 0; r < 64; r++)
    if ((mask >> r) & 1) printf("%5s:0x%" PRIx64 " ", tool_reg_name(r), regs[i++]);
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

/* perf's is_bts_event: a branch event of period 1 (what --itrace's
 * branches are) prints its target after the ip (print_sample_bts). */
static bool is_bts(const struct pd_sample *smp)
{
  const struct perf_event_attr *a = &smp->event->attr;
  return a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && a->sample_period == 1 &&
         (smp->sample_type & PERF_SAMPLE_ADDR);
}

/* " => ADDR sym+off (dso)" of a branch sample (print_sample_addr). */
static void print_branch_to(const struct script *sc, struct session *s, const struct pd_sample *smp)
{
  struct sym_loc to;
  sym_resolve(s->m, smp->pid, smp->cpumode, smp->addr, &to);
  printf(" => %16" PRIx64, smp->addr);
  if (sc->on[F_SYM]) {
    if (!to.sym) printf(" [unknown]");
    else if (sc->on[F_SYMOFF]) printf(" %s+0x%" PRIx64, to.sym->name, to.vaddr - to.sym->start);
    else printf(" %s", to.sym->name);
  }
  if (sc->on[F_DSO]) printf(" (%s)", to.dso ? to.dso->path : "[unknown]");
}

/* PERF_RECORD_AUXTRACE_ERROR as perf script prints it (perf_event__fprintf_auxtrace_error). */
static void print_trace_error(const struct perf_event_header *h)
{
  if (h->size < 112) return;
  uint32_t v[6];
  uint64_t ip, time;
  char msg[65] = "";
  memcpy(v, (const char *)h + 8, 24);
  memcpy(&ip, (const char *)h + 32, 8);
  memcpy(&time, (const char *)h + 40, 8);
  memcpy(msg, (const char *)h + 48, 64);
  printf(" instruction trace error type %u time %" PRIu64 ".%09" PRIu64 " cpu %d pid %d tid %d ip %#" PRIx64
         " code %u: %s\n", v[0], time / 1000000000, time % 1000000000, (int32_t)v[2], (int32_t)v[3],
         (int32_t)v[4], ip, v[1], msg);
}

/* Whether field f is printed for smp: the fields chosen, and by default,
 * for events of PERF_TYPE_RAW, also addr, data_src and weight when sampled,
 * as perf 6.1's defaults for that type have them (output[PERF_TYPE_RAW]). */
static bool on_for(const struct script *sc, const struct pd_sample *smp, enum field f)
{
  if (sc->on[f]) return true;
  if (sc->user_set || sc->del[f] || smp->event->attr.type != PERF_TYPE_RAW) return false;
  return (f == F_ADDR || f == F_DATA_SRC || f == F_WEIGHT) && (smp->sample_type & field_needs[f]);
}

static void print_line(struct script *sc, struct session *s, const struct pd_sample *smp, const struct sym_loc *loc)
{
  bool bts = is_bts(smp);
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
  if (on_for(sc, smp, F_ADDR) && !bts) printf("%16" PRIx64, smp->addr);
  if (on_for(sc, smp, F_DATA_SRC)) {
    uint64_t ds = smp->sample_type & PERF_SAMPLE_DATA_SRC ? smp->data_src : 0x5080021;
    char info[256], out[300];
    mem_info_str(ds, info, sizeof info);
    int len = snprintf(out, sizeof out, "%16" PRIx64 " %s", ds, info);
    if (len > sc->data_src_width) sc->data_src_width = len;
    printf("%-*s", sc->data_src_width, out);
  }
  if (on_for(sc, smp, F_WEIGHT)) printf("%16" PRIu64, smp->weight);
  if (chain) {
    putchar('\n');
    print_chain(sc, s, smp);
  } else if (sc->on[F_IP] || sc->on[F_SYM] || sc->on[F_DSO]) {
    print_sym(sc, smp, loc);
    if (bts && (sc->on[F_ADDR] || !sc->user_set)) print_branch_to(sc, s, smp);
  }
  if (sc->on[F_INSN] || sc->on[F_DISASM]) print_insn(sc, loc, smp->ip);
  if (sc->on[F_IREGS]) print_regs(smp->intr_abi, smp->intr_mask, smp->intr_regs);
  if (sc->on[F_UREGS]) print_regs(smp->user_abi, smp->user_mask, smp->user_regs);
  if (sc->on[F_PM]) print_pm_status(smp);
  putchar('\n');
}

/* ---- the pass ---- */

/* perf script -D prints the sample's script line after its dump. */
static void dump_line(void *ctx, struct session *s, const struct session_rec *r)
{
  print_line(ctx, s, r->sample, &r->loc);
}


static bool wanted(const struct script *sc, struct session *s, const struct pd_sample *smp)
{
  return in_list(sc->comms, sc->ncomms, sym_comm(s->m, smp->pid, smp->tid)) &&
         in_num_list(sc->pids, sc->npids, smp->pid) && in_num_list(sc->tids, sc->ntids, smp->tid);
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct script *sc = ctx;
  if (sc->dump) dump_record(s, r, DUMP_SCRIPT, dump_line, sc);
  else if (r->sample && wanted(sc, s, r->sample)) print_line(sc, s, r->sample, &r->loc);
  else if (r->h->type == 72) print_trace_error(r->h);   /* PERF_RECORD_AUXTRACE_ERROR */
  return 0;
}

static int script_main(int argc, char **argv);

int cmd_script(int argc, char **argv)
{
  bool dump_mode = false;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-D") || !strcmp(argv[i], "--dump-raw-trace")) dump_mode = true;
  /* A trace is decoded into samples first (perf script's --itrace, default
   * "ce" when the file has a trace); -D dumps it raw. */
  char *itrace_tmp = NULL;
  int rc = itrace_args_inject("script", &argc, &argv, &itrace_tmp, dump_mode ? NULL : ITRACE_DEFAULT_OPTS);
  if (rc) return rc;
  rc = script_main(argc, argv);
  if (itrace_tmp) { unlink(itrace_tmp); free(itrace_tmp); free(argv); }
  return rc;
}

static int script_main(int argc, char **argv)
{
  enum { O_COMMS = 256, O_PID, O_TID, O_SYMFS };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "fields", required_argument, NULL, 'F' },
    { "dump-raw-trace", no_argument, NULL, 'D' }, { "comms", required_argument, NULL, O_COMMS },
    { "comm", required_argument, NULL, O_COMMS }, { "pid", required_argument, NULL, O_PID },
    { "tid", required_argument, NULL, O_TID }, { "symfs", required_argument, NULL, O_SYMFS },
    { "hide-call-graph", no_argument, NULL, 'G' }, { "help", no_argument, NULL, 'h' },
    { "itrace", optional_argument, NULL, 'T' }, { NULL, 0, NULL, 0 },
  };
  struct script sc = { .user_set = false };
  bool hide_chains = false;
  const char *input = NULL, *symfs = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:F:DGh", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case 'G': hide_chains = true; break;
    case 'F': if (parse_fields(&sc, optarg)) return 2; break;
    case 'D': sc.dump = true; break;
    case O_COMMS: sc.ncomms = split_list(optarg, sc.comms, MAX_LIST); break;
    case O_PID: sc.npids = split_list(optarg, sc.pids, MAX_LIST); break;
    case O_TID: sc.ntids = split_list(optarg, sc.tids, MAX_LIST); break;
    case O_SYMFS: symfs = optarg; break;
    case 'T': break;             /* handled by itrace_args_inject */
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
  sc.chains = !hide_chains && cc_file_has_chains(&s, &dwarf) && !sc.dump;
  if (sc.chains && dwarf) cc_unwinder_for(&s, &sc.uw);
  int rc = sc.user_set ? check_fields(&sc, &s) : 0;
  if (!rc) {
    sc.name_width = (int)session_max_name(&s);
    if (session_run(&s, on_record, &sc)) {
      fflush(stdout);
      fprintf(stderr, "profileme script: %s: %s\n", s.path, s.err);
      rc = 1;
    } else {
      char warn[512];
      session_lost_warnings(&s, warn, sizeof warn);
      fflush(stdout);
      fputs(warn, stderr);
    }
  }
  cc_frames_free(&sc.frames);
  cc_unwinder_release(&sc.uw);
  session_close(&s);
  return rc;
}
