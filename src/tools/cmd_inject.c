/* `profileme inject --itrace -i IN -o OUT`: perf inject --itrace. The trace
 * is decoded and becomes ordinary samples of events Linux perf knows
 * (instructions:u and branches:u, PERF_TYPE_HARDWARE, as intel-pt's
 * synthesized events), decode errors become PERF_RECORD_AUXTRACE_ERROR
 * records, and the AUXTRACE_INFO and AUXTRACE records are left out: perf
 * 6.1 aborts on an AUXTRACE type it does not know. Every other record, the
 * events, the header features, the build ids and the ground truth are
 * copied.
 * `--arch NAME` (with or without --itrace) writes NAME as the arch header
 * instead of the input's: hotspot 1.3.0's parser refuses a file whose arch it
 * has no register table for, Alpha among them, before reading a sample
 * (docs/viewers.md). The records are copied unchanged. */
#include "tools/commands.h"
#include "analysis/itrace_session.h"
#include "tools/itrace_args.h"
#include "uapi/pm_truth.h"
#include "util/err.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PD_RECORD_AUXTRACE_ERROR 72
#define SYNTH_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
                    PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define MAX_CPUS 64

struct cpu_state { uint64_t insns, next_time, next_cycle, since; bool started; };

struct inject {
  const struct itrace_opts *o;
  const char *arch;                     /* NULL: the input's */
  struct pd_writer *w;
  uint64_t insn_id, branch_id;          /* 0: not synthesized */
  struct cpu_state cpu[MAX_CPUS];
  uint64_t samples, branches, errors;
  int err;
};

/* One synthesized sample (SYNTH_TYPE layout, evsel__parse_sample order). */
static int put_sample(struct inject *in, uint64_t id, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t time,
                      uint64_t addr, uint32_t cpu, uint64_t period)
{
  uint64_t rec[9];
  struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .size = sizeof rec };
  memcpy(&rec[0], &h, 8);
  rec[1] = id;
  rec[2] = ip;
  rec[3] = (uint64_t)tid << 32 | pid;
  rec[4] = time;
  rec[5] = addr;
  rec[6] = id;
  rec[7] = cpu;
  rec[8] = period;
  in->samples++;
  return pd_writer_record(in->w, (const struct perf_event_header *)rec);
}

/* Instruction samples of one block: every period-th instruction (period in
 * instructions), or the block's last when a time or cycle period ends in it. */
static int insn_samples(struct inject *in, const struct itrace_sblock *sb)
{
  const struct itrace_block *b = sb->b;
  struct cpu_state *c = &in->cpu[sb->cpu % MAX_CPUS];
  uint64_t P = in->o->period;
  int e = 0;
  if (in->o->period_type == ITRACE_PERIOD_INSNS) {
    for (uint64_t k = P - c->insns % P; k <= b->n && !e; k += P) {
      uint64_t t = sb->start_time + (sb->time - sb->start_time) * k / (b->n ? b->n : 1);
      e = put_sample(in, in->insn_id, b->pid, b->tid, b->start + 4 * (k - 1), t, 0, sb->cpu, P);
    }
    c->insns += b->n;
    return e;
  }
  c->since += b->n;
  uint64_t now = in->o->period_type == ITRACE_PERIOD_NS ? sb->time : b->cycle;
  uint64_t *next = in->o->period_type == ITRACE_PERIOD_NS ? &c->next_time : &c->next_cycle;
  if (!c->started) { c->started = true; *next = now + P; return 0; }
  if (now < *next || !b->n) return 0;
  *next = now + P - (now - *next) % P;
  e = put_sample(in, in->insn_id, b->pid, b->tid, b->start + 4 * (b->n - 1), sb->time, 0, sb->cpu, c->since);
  c->since = 0;
  return e;
}

static bool branch_wanted(const struct itrace_opts *o, const struct itrace_block *b)
{
  bool taken = b->end == ITRACE_END_TAKEN || b->end == ITRACE_END_TIP || b->end == ITRACE_END_ASYNC;
  if (!taken) return false;
  if (o->branches) return true;
  if (o->calls && (b->flags & (ITRACE_F_CALL | ITRACE_F_SYSCALL))) return true;
  return o->returns && (b->flags & ITRACE_F_RETURN);
}

static int on_block(void *ctx, struct session *s, const struct itrace_sblock *sb)
{
  struct inject *in = ctx;
  (void)s;
  const struct itrace_block *b = sb->b;
  int e = 0;
  if (in->insn_id) e = insn_samples(in, sb);
  if (!e && in->branch_id && branch_wanted(in->o, b)) {
    in->branches++;
    e = put_sample(in, in->branch_id, b->pid, b->tid, b->start + 4 * (b->n ? b->n - 1 : 0), sb->time, b->to, sb->cpu, 1);
  }
  return e;
}

/* PERF_RECORD_AUXTRACE_ERROR, format 1 (perf's auxtrace_synth_error). */
static void on_error(void *ctx, struct session *s, const struct itrace_serror *se)
{
  struct inject *in = ctx;
  (void)s;
  in->errors++;
  if (!in->o->errors) return;
  uint8_t rec[112] = { 0 };
  struct perf_event_header h = { .type = PD_RECORD_AUXTRACE_ERROR, .size = sizeof rec };
  uint32_t v[6] = { 1, se->e->overflow ? 2 : 1, se->cpu, se->e->pid, se->e->tid, 1 };
  memcpy(rec, &h, 8);
  memcpy(rec + 8, v, 24);
  memcpy(rec + 32, &se->e->pc, 8);
  memcpy(rec + 40, &se->time, 8);
  /* msg[64] in perf's record: a longer message is cut, NUL kept (rec is zeroed) */
  memcpy(rec + 48, se->e->msg, strnlen(se->e->msg, 63));
  int e = pd_writer_record(in->w, (const struct perf_event_header *)rec);
  if (e && !in->err) in->err = e;
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct inject *in = ctx;
  (void)s;
  return pd_writer_record(in->w, r->h);
}

/* The header features, events, build ids and truth of the input. */
static int copy_header(struct inject *in, struct session *s)
{
  struct pd_reader *r = s->r;
  const char *cmd = pd_reader_env(r, "cmdline");
  char *argv[1] = { (char *)(cmd ? cmd : "") };
  uint64_t avail = 1, online = 1, mem = 0;
  pd_reader_env_u64(r, "nr_cpus_avail", &avail);
  pd_reader_env_u64(r, "nr_cpus_online", &online);
  pd_reader_env_u64(r, "total_mem", &mem);
  struct pd_env env = { pd_reader_env(r, "hostname"), pd_reader_env(r, "osrelease"), pd_reader_env(r, "version"),
                        in->arch ? in->arch : pd_reader_env(r, "arch"), pd_reader_env(r, "cpudesc"), pd_reader_env(r, "cpuid"),
                        (uint32_t)avail, (uint32_t)online, mem, cmd ? 1 : 0, argv, pd_reader_env(r, "uarch") };
  int e = pd_writer_set_env(in->w, &env);
  uint64_t maxid = 0;
  const struct perf_event_attr *first = NULL;
  for (size_t i = 0; !e && i < pd_reader_nevents(r); i++) {
    const struct pd_event *ev = pd_reader_event(r, i);
    if (!first) first = &ev->attr;
    for (size_t k = 0; k < ev->nids; k++) if (ev->ids[k] > maxid) maxid = ev->ids[k];
    e = pd_writer_add_event(in->w, &ev->attr, ev->name, ev->ids, ev->nids);
  }
  struct perf_event_attr a = { .size = sizeof a, .type = PERF_TYPE_HARDWARE, .sample_type = SYNTH_TYPE,
                               .sample_period = 1, .sample_id_all = 1, .exclude_kernel = 1, .exclude_hv = 1,
                               .read_format = first ? first->read_format : PERF_FORMAT_ID };
  if (!e && in->o->instructions) {
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.sample_period = in->o->period_type == ITRACE_PERIOD_INSNS ? in->o->period : 1;
    in->insn_id = maxid + 1000;
    e = pd_writer_add_event(in->w, &a, "instructions:u", &in->insn_id, 1);
  }
  if (!e && (in->o->branches || in->o->calls || in->o->returns)) {
    a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
    a.sample_period = 1;
    in->branch_id = maxid + 1001;
    e = pd_writer_add_event(in->w, &a, "branches:u", &in->branch_id, 1);
  }
  for (size_t i = 0; !e && i < pd_reader_nbuild_ids(r); i++) {
    const struct pd_build_id *b = pd_reader_build_id(r, i);
    e = pd_writer_add_build_id(in->w, b->pid, b->cpumode, b->id, b->id_len, b->filename);
  }
  size_t nt;
  const struct pm_truth_entry *t = pd_reader_truth(r, &nt);
  if (!e && t) e = pd_writer_set_truth(in->w, t, nt);
  return e;
}

int itrace_inject_file(const char *inpath, const char *out, const struct itrace_opts *o, const char *arch,
                       bool quiet)
{
  struct session s;
  if (session_open(&s, inpath, NULL)) {
    fprintf(stderr, "profileme inject: %s\n", s.err);
    return 1;
  }
  int perr = 0, rc = 1;
  struct inject *in = calloc(1, sizeof *in);
  if (!in) { session_close(&s); return 1; }
  in->o = o;
  in->arch = arch;
  in->w = pd_writer_create(out, &perr);
  if (!in->w) {
    fprintf(stderr, "profileme inject: cannot create %s: %s\n", out, pm_strerror(perr));
    goto out;
  }
  if ((perr = copy_header(in, &s))) {
    fprintf(stderr, "profileme inject: %s: %s\n", out, pm_strerror(perr));
    goto out;
  }
  struct itrace_pass_ops ops = { on_record, on_block, on_error };
  struct itrace_summary sum;
  perr = itrace_pass(&s, &ops, in, &sum);
  if (!perr) perr = in->err;
  if (perr) {
    fprintf(stderr, "profileme inject: %s: %s\n", s.path, s.err[0] ? s.err : pm_strerror(perr));
    goto out;
  }
  if (!sum.has_trace && o->set) fprintf(stderr, "profileme inject: %s has no trace (no AUXTRACE_INFO): copied as it is\n", s.path);
  int werr = pd_writer_close(in->w);
  in->w = NULL;
  if (werr) { fprintf(stderr, "profileme inject: writing %s failed: %s\n", out, pm_strerror(werr)); goto out; }
  if (!quiet && !o->set)
    fprintf(stderr, "[ profileme inject: %s written with arch %s ]\n", out, arch);
  else if (!quiet)
    fprintf(stderr, "[ profileme inject: %" PRIu64 " trace bytes, %" PRIu64 " instructions decoded, %" PRIu64
            " samples written, %" PRIu64 " decode errors ]\n", sum.st.bytes, sum.st.insns, in->samples, in->errors);
  rc = 0;
out:
  if (in->w) pd_writer_close(in->w);
  free(in);
  session_close(&s);
  return rc;
}

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme inject --itrace[=OPTS] [--arch NAME] [-i IN] -o OUT\n"
    "       profileme inject --arch NAME [-i IN] -o OUT\n"
    "Writes OUT with the instruction trace of IN decoded into ordinary samples\n"
    "(and the AUXTRACE records left out), so that Linux perf reads it.\n"
    "  -i, --input FILE    input (default perf.data)\n"
    "  -o, --output FILE   output\n"
    "      --itrace=OPTS   what to synthesize, perf's letters: i[PERIOD] instructions\n"
    "                      (i100: every 100th, i10us: every 10 us, i alone: every\n"
    "                      100 us), b branches, c calls, r returns, e errors\n"
    "                      (no OPTS: \"" ITRACE_DEFAULT_OPTS "\", as perf script)\n"
    "      --arch NAME     write NAME as OUT's arch header (perf's uname -m) instead\n"
    "                      of IN's, the records unchanged: hotspot 1.3.0 refuses\n"
    "                      \"alpha\" and opens the file written with --arch x86\n"
    "                      (its unwinding cannot use Alpha stacks either way;\n"
    "                      docs/viewers.md)\n"
    "  -q, --quiet         no summary line\n");
}

int cmd_inject(int argc, char **argv)
{
  enum { O_ITRACE = 256, O_ARCH };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "output", required_argument, NULL, 'o' },
    { "itrace", optional_argument, NULL, O_ITRACE }, { "arch", required_argument, NULL, O_ARCH }, { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  const char *input = "perf.data", *output = NULL, *arch = NULL;
  struct itrace_opts o = { .set = false };
  bool quiet = false;
  char err[256];
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:o:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case 'o': output = optarg; break;
    case 'q': quiet = true; break;
    case O_ITRACE:
      if (itrace_parse_opts(optarg, &o, err, sizeof err)) { fprintf(stderr, "profileme inject: %s\n", err); return 2; }
      break;
    case O_ARCH:
      /* perf's uname -m: one word of letters, digits, '_' and '-' */
      if (!*optarg || strlen(optarg) > 63 || strspn(optarg, "abcdefghijklmnopqrstuvwxyz"
                                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(optarg)) {
        fprintf(stderr, "profileme inject: --arch wants a machine name such as x86_64 (letters, digits, _ and -; "
                "at most 63), not '%s'\n", optarg);
        return 2;
      }
      arch = optarg;
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (!output || optind < argc) { usage(stderr); return 2; }
  if (!o.set && !arch) {
    fprintf(stderr, "profileme inject: only --itrace and --arch are supported (perf inject's other modes are not)\n");
    return 2;
  }
  if (!strcmp(input, output)) { fprintf(stderr, "profileme inject: input and output are the same file\n"); return 2; }
  return itrace_inject_file(input, output, &o, arch, quiet);
}
