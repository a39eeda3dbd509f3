/* Event names in perf's syntax, shared by record and stat. PMU events
 * (cpu/.../) take their terms from the PMU's sysfs description
 * (kernel/alpha_sysfs.h) as perf's util/pmu.c takes them from the files: a
 * format file "config1:0-2" says which attr field and which bits a term's
 * value fills, an events/ file's terms replace a term that names it, and
 * perf's own terms (config, config1, config2, period, freq) are built in.
 * As in perf's parse_events_add_pmu, the built-in terms are applied first
 * and the format terms then OR their bits in (pmu_format_value without
 * zeroing), whatever the order they are written in. */
#include "tools/events.h"
#include "kernel/alpha_sysfs.h"
#include "kernel/sim_pmu.h"
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perf's parse_events_error: where in spec, what, and a help line. */
struct perr {
  int idx;                 /* offset in spec, -1: no position */
  char str[96];
  char help[320];
};

static int fail(struct perr *e, int idx, const char *str)
{
  if (e->str[0]) return -1;   /* the first error is the one reported */
  e->idx = idx;
  snprintf(e->str, sizeof e->str, "%.*s", (int)sizeof e->str - 1, str);   /* what fits */
  return -1;
}

/* ---- format files (pmu.c's perf_pmu__new_format and format parser) ---- */

struct pfmt { int field; uint64_t bits; };   /* field 0 config, 1 config1, 2 config2 */

/* Parses "config:0-7", "config1:2", "config:0-3,8-11\n". Returns 0 or -1. */
static int format_parse(const char *s, struct pfmt *f)
{
  static const char *const fields[] = { "config:", "config1:", "config2:" };
  f->bits = 0;
  for (f->field = 2; f->field >= 0 && strncmp(s, fields[f->field], strlen(fields[f->field])); f->field--) {}
  if (f->field < 0) return -1;
  s += strlen(fields[f->field]);
  for (;;) {
    char *end;
    unsigned long lo = strtoul(s, &end, 10), hi = lo;
    if (end == s) return -1;
    if (*end == '-') { s = end + 1; hi = strtoul(s, &end, 10); if (end == s) return -1; }
    if (hi > 63 || lo > hi) return -1;
    for (unsigned long b = lo; b <= hi; b++) f->bits |= 1ull << b;
    s = end;
    if (*s != ',') break;
    s++;
  }
  return *s == '\n' || !*s ? 0 : -1;
}

static __u64 *field_ptr(struct perf_event_attr *a, int field)
{
  return field == 0 ? &a->config : field == 1 ? &a->config1 : &a->config2;
}

/* pmu_format_max_value: all ones in as many bits as the format has. */
static uint64_t format_max(uint64_t bits)
{
  int n = __builtin_popcountll(bits);
  return n >= 64 ? UINT64_MAX : (1ull << n) - 1;
}

/* pmu_format_value: the value's low bits are ORed, in order, into the
 * format's bits. */
static void format_place(uint64_t bits, uint64_t value, __u64 *v)
{
  for (int fbit = 0, vbit = 0; fbit < 64; fbit++) {
    if (!(bits >> fbit & 1)) continue;
    if (value >> vbit++ & 1) *v |= 1ull << fbit;
  }
}

static const struct pmu_sysfs_attr *attr_find(const struct pmu_sysfs_attr *t, size_t n, const char *name, size_t len)
{
  for (size_t i = 0; i < n; i++)
    if (strlen(t[i].name) == len && !strncmp(t[i].name, name, len)) return &t[i];
  return NULL;
}

/* ---- terms ---- */

/* One term of a /terms/ list as perf's lexer sees it. */
struct term {
  const char *name, *val;   /* val NULL: no value (a flag, or an event name) */
  size_t nlen, vlen;
  int at, val_at;           /* offsets in spec, for the error pointer */
};

/* A perf number: decimal, or hex with 0x. Returns 0, or -1 when not one. */
static int term_num(const struct term *t, uint64_t *v)
{
  if (!t->val) { *v = 1; return 0; }
  char buf[32], *end;
  if (!t->vlen || t->vlen >= sizeof buf) return -1;
  memcpy(buf, t->val, t->vlen);
  buf[t->vlen] = 0;
  bool hex = t->vlen > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
  if (!(hex ? isxdigit((unsigned char)buf[2]) : isdigit((unsigned char)buf[0]))) return -1;
  errno = 0;
  *v = strtoull(hex ? buf + 2 : buf, &end, hex ? 16 : 10);
  return *end || errno ? -1 : 0;
}

static bool term_is(const struct term *t, const char *name)
{
  return strlen(name) == t->nlen && !strncmp(t->name, name, t->nlen);
}

static void valid_terms(const struct pmu_sysfs *pmu, struct perr *e)
{
  size_t o = (size_t)snprintf(e->help, sizeof e->help, "valid terms: ");
  for (size_t i = 0; i < pmu->nformat && o < sizeof e->help; i++)
    o += (size_t)snprintf(e->help + o, sizeof e->help - o, "%s,", pmu->format[i].name);
  if (o < sizeof e->help) snprintf(e->help + o, sizeof e->help - o, "config,config1,config2,period,freq");
}

/* The passes over a term list: perf's built-in terms, then the formats. */
enum pass { PASS_BUILTIN, PASS_FORMAT };

static int terms_apply(const struct pmu_sysfs *pmu, const char *s, size_t len, int at, bool alias_ok,
                       enum pass pass, struct perf_event_attr *a, struct perr *e);

/* An event alias (events/NAME) stands for its terms, applied in its
 * place (in the same pass); aliases do not nest. */
static int alias_apply(const struct pmu_sysfs *pmu, const struct pmu_sysfs_attr *al, int at,
                       enum pass pass, struct perf_event_attr *a, struct perr *e)
{
  size_t n = strcspn(al->content, "\n");
  struct perr inner = { .idx = -1 };
  if (!terms_apply(pmu, al->content, n, 0, false, pass, a, &inner)) return 0;
  /* room for the whole text; fail() keeps what fits in e->str */
  char msg[sizeof e->str + sizeof inner.str + 64];
  snprintf(msg, sizeof msg, "bad sysfs event '%.40s': %s", al->name, inner.str);
  return fail(e, at, msg);
}

/* Applies one term in its pass (config_term_common, pmu_config_term;
 * perf_pmu__check_alias first). */
static int term_apply(const struct pmu_sysfs *pmu, const struct term *t, bool alias_ok, enum pass pass,
                      struct perf_event_attr *a, struct perr *e)
{
  uint64_t v = 0;
  bool num = !term_num(t, &v);
  const struct pmu_sysfs_attr *fmt = attr_find(pmu->format, pmu->nformat, t->name, t->nlen);
  const struct pmu_sysfs_attr *al = NULL;
  if (alias_ok && !fmt && num && v == 1) al = attr_find(pmu->events, pmu->nevents, t->name, t->nlen);
  if (alias_ok && !al && !num && term_is(t, "event")) al = attr_find(pmu->events, pmu->nevents, t->val, t->vlen);
  if (al) return alias_apply(pmu, al, t->at, pass, a, e);
  static const char *const builtin[] = { "config", "config1", "config2", "period", "freq" };
  for (int i = 0; i < 5; i++) {
    if (!term_is(t, builtin[i])) continue;
    if (pass != PASS_BUILTIN) return 0;
    if (!num) return fail(e, t->val_at, "expected numeric value");
    if (i < 3) *field_ptr(a, i) = v;
    else if (i == 3) { a->sample_period = v; a->freq = 0; }
    else { a->sample_freq = v; a->freq = 1; }
    return 0;
  }
  if (pass != PASS_FORMAT) return 0;
  if (!fmt) {
    char msg[sizeof e->str];
    snprintf(msg, sizeof msg, "unknown term '%.*s' for pmu '%s'", (int)t->nlen, t->name, pmu->name);
    if (!e->str[0]) valid_terms(pmu, e);
    return fail(e, t->at, msg);
  }
  struct pfmt f;
  if (format_parse(fmt->content, &f)) return fail(e, t->at, "bad format file");
  if (!t->val && __builtin_popcountll(f.bits) > 1) return fail(e, t->at, "no value assigned for term");
  if (!num) return fail(e, t->val_at, "expected numeric value");
  if (v > format_max(f.bits)) {
    char msg[sizeof e->str];
    snprintf(msg, sizeof msg, "value too big for format, maximum is %llu", (unsigned long long)format_max(f.bits));
    return fail(e, t->val_at, msg);
  }
  format_place(f.bits, v, field_ptr(a, f.field));
  return 0;
}

/* Applies the comma-separated terms s[0..len) (spec offset at). */
static int terms_apply(const struct pmu_sysfs *pmu, const char *s, size_t len, int at, bool alias_ok,
                       enum pass pass, struct perf_event_attr *a, struct perr *e)
{
  size_t i = 0;
  if (!len) return 0;   /* cpu// : the PMU's defaults, as perf allows */
  for (;;) {
    size_t end = i;
    while (end < len && s[end] != ',') end++;
    struct term t = { .name = s + i, .at = at + (int)i };
    const char *eq = memchr(s + i, '=', end - i);
    t.nlen = (eq ? (size_t)(eq - s) : end) - i;
    if (eq) { t.val = eq + 1; t.vlen = end - (size_t)(eq + 1 - s); t.val_at = at + (int)(eq + 1 - s); }
    if (!t.nlen) return fail(e, t.at, "parser error");
    if (term_apply(pmu, &t, alias_ok, pass, a, e)) return -1;
    if (end == len) return 0;
    i = end + 1;
  }
}

/* ---- whole events ---- */

static const struct { const char *name, *alias; uint32_t type; uint64_t config; } symbolic[] = {
  { "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
  { "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
  { "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
  { "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
  { "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
  { "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
  { "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
  { "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

/* sim/NAME/ (or sim/NAME): the ground-truth PMU, config = the row. */
static int parse_sim(const char *name, size_t len, struct perf_event_attr *a)
{
  size_t n;
  const struct sim_event *ev = sim_pmu_events(&n);
  a->type = SIM_PMU_TYPE;
  for (a->config = 0; a->config < n; a->config++)
    if (strlen(ev[a->config].name) == len && !strncmp(name, ev[a->config].name, len)) return 0;
  return -1;
}

/* The event part of spec, s[0..len): a PMU event, a symbolic name, a raw
 * rNNN, or a PMU's event alias written bare (bcache_misses, mem-loads). */
static int parse_name(const char *s, size_t len, struct perf_event_attr *a, struct perr *e)
{
  const char *slash = memchr(s, '/', len);
  if (slash) {
    char pmu_name[32];
    size_t pl = (size_t)(slash - s);
    /* sim/NAME/, or sim/NAME as stat has always taken it */
    if (pl == 3 && !strncmp(s, "sim", 3))
      return len < 5 || parse_sim(s + 4, len - 4 - (s[len - 1] == '/'), a) ? fail(e, 4, "unknown sim event") : 0;
    if (!pl || pl >= sizeof pmu_name || s[len - 1] != '/' || len < pl + 2) return fail(e, 0, "parser error");
    memcpy(pmu_name, s, pl);
    pmu_name[pl] = 0;
    const struct pmu_sysfs *pmu = pmu_sysfs_find(pmu_name);
    if (!pmu) {
      char msg[sizeof e->str];
      snprintf(msg, sizeof msg, "Cannot find PMU `%s'. Missing kernel support?", pmu_name);
      return fail(e, 0, msg);
    }
    a->type = (uint32_t)strtoul(pmu->type, NULL, 10);
    const char *t = slash + 1;
    size_t tl = len - pl - 2;
    return terms_apply(pmu, t, tl, (int)pl + 1, true, PASS_BUILTIN, a, e) ||
           terms_apply(pmu, t, tl, (int)pl + 1, true, PASS_FORMAT, a, e) ? -1 : 0;
  }
  for (size_t i = 0; i < sizeof symbolic / sizeof symbolic[0]; i++) {
    bool is = (strlen(symbolic[i].name) == len && !strncmp(s, symbolic[i].name, len)) ||
              (symbolic[i].alias && strlen(symbolic[i].alias) == len && !strncmp(s, symbolic[i].alias, len));
    if (is) { a->type = symbolic[i].type; a->config = symbolic[i].config; return 0; }
  }
  if (len > 1 && s[0] == 'r' && strspn(s + 1, "0123456789abcdefABCDEF") >= len - 1) {
    a->type = PERF_TYPE_RAW;
    a->config = strtoull(s + 1, NULL, 16);
    return 0;
  }
  const struct pmu_sysfs *cpu = pmu_sysfs_find("cpu");
  const struct pmu_sysfs_attr *al = attr_find(cpu->events, cpu->nevents, s, len);
  if (!al) return fail(e, 0, "parser error");
  a->type = (uint32_t)strtoul(cpu->type, NULL, 10);
  return alias_apply(cpu, al, 0, PASS_BUILTIN, a, e) || alias_apply(cpu, al, 0, PASS_FORMAT, a, e) ? -1 : 0;
}

/* The modifiers after ':' (or after a PMU event's closing '/'); at is the
 * spec offset of the ':' (or of the first modifier), where perf points an
 * error. Returns 0 or -1. */
static int parse_mods(const char *m, int at, struct perf_event_attr *a, struct perr *e)
{
  for (const char *c = m; *c; c++) {
    switch (*c) {
    case 'u': a->exclude_kernel = 1; a->exclude_hv = 1; break;
    case 'k': a->exclude_user = 1; a->exclude_hv = 1; break;
    case 'p': if (a->precise_ip == 3) return fail(e, at, "parser error"); a->precise_ip++; break;
    case 'P': a->precise_ip = 2; break;
    default: return fail(e, at, "parser error");
    }
  }
  return 0;
}

/* perf's __parse_events_error__print for a terminal 80 columns wide: the
 * event (cut at the front when the error is far in), a pointer line under
 * the error, the help. */
static void format_error(const char *spec, const struct perr *e, char *msg, size_t len)
{
  if (!msg || !len) return;
  if (e->idx < 0 || !e->str[0]) {
    snprintf(msg, len, "invalid or unsupported event: '%s'\n", spec);
    return;
  }
  const char *str = "event syntax error: ";
  int len_str = (int)strlen(str), max_len = 80 - 2 - len_str, cut = e->idx > 13 ? e->idx - 13 : 0;
  char buf[128];
  snprintf(buf, sizeof buf, "%.*s", max_len < (int)sizeof buf - 1 ? max_len : (int)sizeof buf - 1, spec + cut);
  if (cut) buf[0] = buf[1] = '.';
  if ((int)strlen(spec) - cut > max_len) { buf[max_len - 1] = buf[max_len - 2] = '.'; buf[max_len] = 0; }
  int idx = len_str + e->idx - cut;
  int o = snprintf(msg, len, "%s'%s'\n%*s\\___ %s\n", str, buf, idx + 1, "", e->str);
  if (e->help[0] && o > 0 && (size_t)o < len) snprintf(msg + o, len - (size_t)o, "\n%s\n", e->help);
}

int event_parse_msg(const char *spec, struct perf_event_attr *a, char *msg, size_t len)
{
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  struct perr e = { .idx = -1 };
  size_t n = strlen(spec);
  /* modifiers: after the last ':' past any PMU terms, or right after a
   * PMU event's closing '/' (cpu/event=1/u, as perf writes it) */
  const char *last = strrchr(spec, '/'), *first = strchr(spec, '/');
  const char *colon = strchr(last ? last : spec, ':');
  const char *mods = NULL;
  size_t ename = n;
  if (colon) { ename = (size_t)(colon - spec); mods = colon + 1; }
  else if (last && last != first && last[1]) { ename = (size_t)(last + 1 - spec); mods = last + 1; }
  if (!ename) fail(&e, 0, "parser error");
  if (!ename || parse_name(spec, ename, a, &e) || (mods && parse_mods(mods, (int)(colon ? colon - spec : mods - spec), a, &e))) {
    format_error(spec, &e, msg, len);
    return -1;
  }
  return 0;
}

int event_parse(const char *spec, struct perf_event_attr *a)
{
  return event_parse_msg(spec, a, NULL, 0);
}

char *event_list_next(char **cursor)
{
  char *s = *cursor;
  if (!s || !*s) return NULL;
  bool in_terms = false;
  char *p = s;
  for (; *p && (in_terms || *p != ','); p++)
    if (*p == '/') in_terms = !in_terms;
  *cursor = *p ? p + 1 : p;
  *p = '\0';
  return s;
}
