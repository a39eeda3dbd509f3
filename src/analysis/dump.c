/* perf's dump mode (-D, --dump-raw-trace), which perf script and perf
 * report share: each record's file offset, type and size, its bytes in hex
 * and ASCII, the time stamp, and its decoded fields; a ProfileMe sample's raw
 * payload decoded by register field and status name after its bytes, where
 * the perf-tools series' patch has perf print it. */
#include "analysis/dump.h"
#include "analysis/itrace.h"
#include "analysis/reg_names.h"
#include "uapi/ev67_regs.h"
#include "analysis/pm_status.h"
#include "analysis/datasrc.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* perf's user record types (tools/lib/perf/include/perf/event.h) dumped here */
enum { REC_ID_INDEX = 69, REC_THREAD_MAP = 73, REC_CPU_MAP = 74 };

/* perf's cpu_map__snprint: ascending runs as "0-3,5" (-1 for "any CPU"). */
static void print_cpu_list(const int *cpu, size_t n)
{
  bool first = true;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && cpu[j + 1] - cpu[i] == (int)(j + 1 - i)) j++;
    if (j == i) printf("%s%d", first ? "" : ",", cpu[i]);
    else printf("%s%d-%d", first ? "" : ",", cpu[i], cpu[j]);
    first = false;
    i = j + 1;
  }
  putchar('\n');
}

static uint16_t u16_at(const struct perf_event_header *h, size_t off)
{
  uint16_t v = 0;
  if (off + 2 <= h->size) memcpy(&v, (const char *)h + off, 2);
  return v;
}

/* perf_event__fprintf_cpu_map: ": " and the CPUs of a CPU_MAP record (its
 * data at 8: u16 type, then a list of u16, a bit mask of 32 or 64-bit words,
 * or a range; packed). */
static void dump_cpu_map(const struct perf_event_header *h)
{
  int cpus[4096];
  size_t n = 0;
  uint16_t type = u16_at(h, 8);
  printf(": ");
  if (type == 0) {                                  /* PERF_CPU_MAP__CPUS */
    for (unsigned i = 0, nr = u16_at(h, 10); i < nr && n < 4096; i++) {
      uint16_t c = u16_at(h, 12 + 2 * (size_t)i);
      cpus[n++] = c == 0xffff ? -1 : c;
    }
  } else if (type == 1) {                           /* PERF_CPU_MAP__MASK */
    unsigned nr = u16_at(h, 10), lsize = u16_at(h, 12);
    for (unsigned w = 0; w < nr && (lsize == 4 || lsize == 8); w++) {
      uint64_t m = lsize == 4 ? u32_at(h, 14 + 4 * (size_t)w) : u64_at(h, 18 + 8 * (size_t)w);
      for (unsigned b = 0; b < lsize * 8 && n < 4096; b++)
        if (m >> b & 1) cpus[n++] = (int)(w * lsize * 8 + b);
    }
  } else if (type == 2) {                           /* PERF_CPU_MAP__RANGE_CPUS */
    const uint8_t *d = (const uint8_t *)h;
    if (h->size >= 16 && d[10]) cpus[n++] = -1;
    for (unsigned c = u16_at(h, 12); h->size >= 16 && c <= u16_at(h, 14) && n < 4096; c++) cpus[n++] = (int)c;
  }
  if (n) print_cpu_list(cpus, n);
  else printf("\n");
}

/* perf_event__fprintf_thread_map: " nr: N thread(s): PID, PID" (u64 nr at 8,
 * then {u64 pid; char comm[16]} each). */
static void dump_thread_map(const struct perf_event_header *h)
{
  uint64_t nr = u64_at(h, 8);
  if (nr > (h->size - 16u) / 24) nr = (h->size - 16u) / 24;
  printf(" nr: %d thread%s: ", (int)nr, nr > 1 ? "s" : "");
  for (uint64_t i = 0; i < nr; i++) printf("%s%d", i ? ", " : "", (int32_t)u64_at(h, 16 + 24 * i));
  putchar('\n');
}

/* perf_event__process_id_index's dump: " nr: N", then each entry
 * {id, idx, cpu, tid} and, when the record has room for them after the
 * entries, their {machine_pid, vcpu}. */
static void dump_id_index(const struct perf_event_header *h)
{
  uint64_t nr = u64_at(h, 8), room = h->size > 16 ? (h->size - 16u) : 0;
  bool two = nr && room >= nr * 48;
  if (nr > room / 32) nr = room / 32;
  printf(" nr: %zu\n", (size_t)nr);
  for (uint64_t i = 0; i < nr; i++) {
    size_t e = 16 + 32 * i;
    printf(" ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %" PRId64 "  tid: %" PRId64, u64_at(h, e), u64_at(h, e + 8),
           (int64_t)u64_at(h, e + 16), (int64_t)u64_at(h, e + 24));
    if (two) {
      size_t e2 = 16 + 32 * nr + 16 * i;
      printf("  machine_pid: %" PRId64 "  vcpu: %" PRIu64 "\n", (int64_t)u64_at(h, e2), u64_at(h, e2 + 8));
    } else {
      putchar('\n');
    }
  }
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

/* The ProfileMe decode of a sample, as the perf-tools series' patch prints
 * it (util/alpha-sample-raw.c, perf's trace_event_sample_raw hook): for the
 * samples of ProfileMe events in an Alpha file, right after the record's
 * bytes; the payload's registers field by field, the driver's status by name,
 * the window counts (PCTR1 is the weight) and the data source. */
static void dump_pm(const struct session *s, const struct pd_sample *smp)
{
  const char *arch = pd_reader_env(s->r, "arch");
  struct pm_raw_v1 raw;
  if (!arch || strcmp(arch, "alpha") || !pm_event_is_profileme(&smp->event->attr)) return;
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
  if (smp->sample_type & PERF_SAMPLE_DATA_SRC) {
    char ds[160];
    mem_info_str(smp->data_src, ds, sizeof ds);
    printf(" ...... data_src: %s\n", ds);
  }
}

/* perf's regs__printf: "... user regs: mask 0x... ABI 64-bit", then
 * ".... NAME  0x%016lx" per register (nothing when the abi is NONE). */
static void dump_regs(const char *type, bool has, uint64_t abi, uint64_t mask, const uint64_t *regs)
{
  static const char *const abis[] = { "none", "32-bit", "64-bit" };
  if (!has || !regs) return;
  printf("... %s regs: mask 0x%" PRIx64 " ABI %s\n", type, mask, abi < 3 ? abis[abi] : "unknown");
  unsigned i = 0;
  for (int r = 0; r < 64; r++)
    if ((mask >> r) & 1) printf(".... %-5s 0x%016" PRIx64 "\n", tool_reg_name(r), regs[i++]);
}

static void dump_sample(struct session *s, const struct session_rec *r, dump_fn after, void *ctx)
{
  const struct pd_sample *smp = r->sample;
  printf("(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n", r->h->misc,
         (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, smp->period, smp->addr);
  if (smp->sample_type & PERF_SAMPLE_CALLCHAIN) {
    printf("... FP chain: nr:%" PRIu64 "\n", smp->callchain_nr);
    for (uint64_t i = 0; i < smp->callchain_nr; i++) printf(".....  %2" PRIu64 ": %016" PRIx64 "\n", i, smp->callchain[i]);
  }
  dump_regs("user", smp->sample_type & PERF_SAMPLE_REGS_USER, smp->user_abi, smp->user_mask, smp->user_regs);
  dump_regs("intr", smp->sample_type & PERF_SAMPLE_REGS_INTR, smp->intr_abi, smp->intr_mask, smp->intr_regs);
  if (smp->sample_type & PERF_SAMPLE_STACK_USER)
    printf("... ustack: size %" PRIu64 ", offset 0x%x\n", smp->stack_dyn_size, smp->stack_offset);
  if (smp->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) printf("... weight: %" PRIu64 "\n", smp->weight);
  if (smp->sample_type & PERF_SAMPLE_DATA_SRC) printf(" . data_src: 0x%" PRIx64 "\n", smp->data_src);
  printf(" ... thread: %s:%d\n ...... dso: %s\n", sym_comm(s->m, smp->pid, smp->tid), (int32_t)smp->tid,
         r->loc.dso ? r->loc.dso->path : "[unknown]");
  if (after) after(ctx, s, r);
}

/* The trace data after an AUXTRACE record, packet by packet, as perf's
 * intel-pt dump prints it (". OFFSET: bytes  packet"). A packet the buffer
 * cuts is printed as bytes only (the next buffer holds its end). */
static void dump_auxtrace(const struct perf_event_header *h)
{
  struct pd_auxtrace a;
  const uint8_t *d;
  char eb[128];
  if (pd_parse_auxtrace(h, &a, &d, eb, sizeof eb)) { printf(": %s\n", eb); return; }
  printf(" size: %#" PRIx64 "  offset: %#" PRIx64 "  ref: %#" PRIx64 "  idx: %u  tid: %d  cpu: %d\n", a.size,
         a.offset, a.reference, a.idx, (int32_t)a.tid, (int32_t)a.cpu);
  printf(". ... EV67 trace unit data: size %" PRIu64 " bytes\n", a.size);
  for (uint64_t at = 0; at < a.size;) {
    struct itrace_packet p;
    const char *why = "";
    int n = itrace_pkt_parse(d + at, (size_t)(a.size - at), &p, &why);
    char desc[160];
    if (n > 0) itrace_pkt_desc(&p, desc, sizeof desc);
    else snprintf(desc, sizeof desc, n ? "bad packet: %s" : "packet continues in the next buffer", why);
    size_t len = n > 0 ? (size_t)n : n ? 1 : (size_t)(a.size - at);
    printf(".  %08" PRIx64 ": ", a.offset + at);
    for (size_t i = 0; i < 16; i++) {
      if (i < len) printf("%02x ", d[at + i]);
      else printf("   ");
    }
    printf(" %s\n", desc);
    at += len;
  }
}

void dump_record(struct session *s, const struct session_rec *r, enum dump_tool tool, dump_fn after, void *ctx)
{
  const struct perf_event_header *h = r->h;
  const char *name = session_record_name(h->type);
  printf("\n%#" PRIx64 "@%s [%#x]: event: %u\n", r->offset, s->path, h->size, h->type);
  hex_dump(h);
  if (h->type == PERF_RECORD_SAMPLE && r->sample) dump_pm(s, r->sample);
  dump_tstamp(s, r);
  printf("%#" PRIx64 " [%#x]: PERF_RECORD_%s", r->offset, h->size, name ? name : "UNKNOWN");
  switch (h->type) {
  case PERF_RECORD_SAMPLE: dump_sample(s, r, after, ctx); break;
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
  case PERF_RECORD_AUX: {
    uint64_t o = u64_at(h, 8), sz = u64_at(h, 16), f = u64_at(h, 24);
    printf(" offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#" PRIx64 " [%s%s%s]\n", o, sz, f,
           f & PERF_AUX_FLAG_TRUNCATED ? "T" : "", f & PERF_AUX_FLAG_OVERWRITE ? "O" : "",
           f & PERF_AUX_FLAG_PARTIAL ? "P" : "");
    break;
  }
  case PERF_RECORD_ITRACE_START: printf(" pid: %u tid: %u\n", u32_at(h, 8), u32_at(h, 12)); break;
  case PD_RECORD_AUXTRACE_INFO: printf(" type: %u\n", h->size >= 16 ? u32_at(h, 8) : 0); break;
  case PD_RECORD_AUXTRACE: dump_auxtrace(h); break;
  case REC_ID_INDEX: dump_id_index(h); break;
  /* report has no handler for these: perf prints them, then its stub's word */
  case REC_THREAD_MAP:
    dump_thread_map(h);
    if (tool == DUMP_REPORT) printf(": unhandled!\n");
    break;
  case REC_CPU_MAP:
    dump_cpu_map(h);
    if (tool == DUMP_REPORT) printf(": unhandled!\n");
    break;
  case PERF_RECORD_THROTTLE:
  case PERF_RECORD_UNTHROTTLE:
    /* perf 6.1: script's handler prints nothing, not even the line's end
     * (the next record's first "\n" ends it); report has no handler */
    if (tool == DUMP_REPORT) printf(": unhandled!\n");
    break;
  default:
    printf(name && h->type >= 64 && h->type != 82 ? "\n" : ": unhandled!\n");
    break;
  }
}

/* perf_session__fprintf_nr_events and evlist__fprintf_nr_events with
 * skip_empty (report's default): the non-zero counts in type order, each a
 * share of the total, then each event's samples. */
void dump_stats(const struct session *s, const uint32_t *counts, const uint64_t *nsamples)
{
  printf("\nAggregated stats:\n");
  for (uint32_t t = 0; t < DUMP_NTYPES; t++) {
    const char *name = t ? session_record_name(t) : "TOTAL";
    if (!name || !counts[t]) continue;
    if (t) printf("%16s events: %10u  (%4.1f%%)\n", name, counts[t], 100.0 * counts[t] / counts[0]);
    else printf("%16s events: %10u\n", name, counts[t]);
  }
  for (size_t i = 0; i < pd_reader_nevents(s->r); i++) {
    if (!nsamples[i]) continue;
    printf("%s stats:\n%16s events: %10" PRIu64 "\n", pd_reader_event(s->r, i)->name, "SAMPLE", nsamples[i]);
  }
}
