/* Call chains and call trees; see callchain.h. The printing follows
 * tools/perf/ui/stdio/hist.c of Linux 6.1 (callchain__fprintf_graph and
 * its helpers) character for character. */
#include "analysis/callchain.h"
#include "util/err.h"
#include "analysis/hist.h"
#include "util/strlist.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cc_frames_free(struct cc_frames *fr)
{
  free(fr->f);
  memset(fr, 0, sizeof *fr);
}

int cc_frames_push(struct cc_frames *fr, uint64_t ip, uint16_t cpumode)
{
  if (fr->n == fr->cap) {
    size_t cap = fr->cap ? fr->cap * 2 : 64;
    struct cc_frame *f = realloc(fr->f, cap * sizeof *f);
    if (!f) return PM_ENOMEM;
    fr->f = f;
    fr->cap = cap;
  }
  fr->f[fr->n++] = (struct cc_frame){ ip, cpumode };
  return 0;
}

/* perf's add_callchain_ip for the markers: the cpumode they switch to, or
 * false for one perf does not know (the chain is then discarded). */
static bool context_mode(uint64_t ip, uint16_t *cpumode)
{
  switch (ip) {
  case (uint64_t)PERF_CONTEXT_HV: *cpumode = PERF_RECORD_MISC_HYPERVISOR; return true;
  case (uint64_t)PERF_CONTEXT_KERNEL: *cpumode = PERF_RECORD_MISC_KERNEL; return true;
  case (uint64_t)PERF_CONTEXT_USER: *cpumode = PERF_RECORD_MISC_USER; return true;
  default: return false;
  }
}

int cc_sample_frames(struct session *s, const struct pd_sample *smp, const struct cc_unwinder *uw,
                     struct cc_frames *out)
{
  out->n = 0;
  out->bad = out->truncated = false;
  uint16_t cpumode = PERF_RECORD_MISC_USER;
  if (smp->sample_type & PERF_SAMPLE_CALLCHAIN) {
    for (uint64_t i = 0; i < smp->callchain_nr; i++) {
      uint64_t ip = smp->callchain[i];
      if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
        /* A user chain the recording unwinder stopped early ends with an
         * empty user context (docs/callgraph.md): marked truncated. */
        if (ip == (uint64_t)PERF_CONTEXT_USER && cpumode == PERF_RECORD_MISC_USER && i > 0 &&
            smp->callchain[i - 1] < (uint64_t)PERF_CONTEXT_MAX &&
            (i + 1 == smp->callchain_nr || smp->callchain[i + 1] >= (uint64_t)PERF_CONTEXT_MAX))
          out->truncated = true;
        if (context_mode(ip, &cpumode)) continue;
        out->n = 0;
        out->bad = true;
        return 0;
      }
      if (cc_frames_push(out, ip, cpumode)) return PM_ENOMEM;
    }
  }
  if (uw && (smp->sample_type & PERF_SAMPLE_REGS_USER) && smp->user_abi && smp->user_regs &&
      smp->stack_size)
    return uw->unwind(uw->ctx, s, smp, out);
  return 0;
}

bool cc_file_has_chains(const struct session *s, bool *dwarf)
{
  bool any = false;
  *dwarf = false;
  for (size_t i = 0; i < pd_reader_nevents(s->r); i++) {
    uint64_t st = pd_reader_event(s->r, i)->attr.sample_type;
    if (st & PERF_SAMPLE_CALLCHAIN) any = true;
    if ((st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER)) any = *dwarf = true;
  }
  return any;
}

void cc_key_of(struct session *s, uint32_t pid, const struct cc_frame *f, struct cc_key *k)
{
  struct sym_loc loc;
  sym_resolve(s->m, pid, f->cpumode, f->ip, &loc);
  memset(k, 0, sizeof *k);
  k->dso = loc.dso;
  k->sym = loc.sym;
  if (!loc.sym) k->ip = f->ip;
}

void cc_key_name(const struct cc_key *k, char *buf, size_t len)
{
  if (k->sym) snprintf(buf, len, "%s", k->sym->name);
  else snprintf(buf, len, "%#" PRIx64, k->ip);
}

/* ---- the trees ---- */

struct node {
  struct cc_key key;
  uint32_t parent, child, sibling, nchild;
  uint32_t max_depth;            /* roots: the longest chain added (perf's max_depth) */
  uint64_t hit, cumul;           /* period ending here; through here */
  uint64_t count, cumul_count;   /* the same in samples */
};
struct cc_forest {
  struct node *n;
  size_t len, cap;
  struct hist *index;            /* (parent, key) -> child */
};
struct edge { uint32_t parent, pad; struct cc_key key; };

struct cc_forest *cc_forest_create(void)
{
  struct cc_forest *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->index = hist_create(sizeof(struct edge), sizeof(uint32_t));
  t->len = 1;                    /* id 0 means none */
  if (!t->index) { free(t); return NULL; }
  return t;
}

void cc_forest_destroy(struct cc_forest *t)
{
  if (!t) return;
  hist_destroy(t->index);
  free(t->n);
  free(t);
}

static uint32_t node_new(struct cc_forest *t, uint32_t parent, const struct cc_key *k)
{
  if (t->len >= UINT32_MAX - 1) return 0;
  if (t->len >= t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    struct node *n = realloc(t->n, cap * sizeof *n);
    if (!n) return 0;
    t->n = n;
    t->cap = cap;
  }
  uint32_t id = (uint32_t)t->len++;
  struct node *nd = &t->n[id];
  memset(nd, 0, sizeof *nd);
  if (k) nd->key = *k;
  nd->parent = parent;
  if (parent) {
    nd->sibling = t->n[parent].child;
    t->n[parent].child = id;
    t->n[parent].nchild++;
  }
  return id;
}

uint32_t cc_tree_new(struct cc_forest *t) { return node_new(t, 0, NULL); }

uint32_t cc_tree_max_depth(const struct cc_forest *t, uint32_t root) { return root ? t->n[root].max_depth : 0; }

int cc_tree_add(struct cc_forest *t, uint32_t root, const struct cc_key *keys, size_t n, uint64_t period)
{
  uint32_t cur = root;
  if (n > t->n[root].max_depth) t->n[root].max_depth = (uint32_t)n;
  t->n[root].cumul += period;
  t->n[root].cumul_count++;
  for (size_t i = 0; i < n; i++) {
    struct edge e;
    memset(&e, 0, sizeof e);
    e.parent = cur;
    e.key = keys[i];
    uint32_t *child = hist_get(t->index, &e);
    if (!child) return PM_ENOMEM;
    if (!*child) {
      uint32_t id = node_new(t, cur, &keys[i]);
      if (!id) return PM_ENOMEM;
      child = hist_get(t->index, &e);   /* node_new does not touch the index; the value stays */
      *child = id;
    }
    cur = *child;
    t->n[cur].cumul += period;
    t->n[cur].cumul_count++;
  }
  t->n[cur].hit += period;
  t->n[cur].count++;
  return 0;
}

static const struct cc_forest *sort_t;   /* qsort has no context argument */
static double sort_pct;                  /* fractal mode's threshold, for sorted_children */
#define REL_MIN UINT64_MAX

/* perf's radix node starting at trie node id: it runs on while a node has
 * no hits of its own and one child. Returns the last trie node of it. */
static uint32_t run_end(const struct cc_forest *t, uint32_t id)
{
  while (!t->n[id].hit && t->n[id].nchild == 1) id = t->n[id].child;
  return id;
}


/* The order of perf's rb_root_in (append_chain_children with
 * match_chain_dso_addresses, which compares the DSO pointers, then the
 * addresses): a new node goes left of a lower one, so siblings run from the
 * highest down, frames without a DSO last. DSOs are created in the order
 * their maps appear, in perf as here. */
static int key_cmp(const struct cc_key *a, const struct cc_key *b)
{
  uintptr_t da = (uintptr_t)a->dso, db = (uintptr_t)b->dso;
  if (da != db) return da > db ? -1 : 1;
  uint64_t x = a->sym ? a->sym->start : a->ip, y = b->sym ? b->sym->start : b->ip;
  return x > y ? -1 : x < y;
}

static int by_key(const void *pa, const void *pb)
{
  return key_cmp(&sort_t->n[*(const uint32_t *)pa].key, &sort_t->n[*(const uint32_t *)pb].key);
}

static int by_cumul(const void *pa, const void *pb)
{
  const struct node *a = &sort_t->n[*(const uint32_t *)pa], *b = &sort_t->n[*(const uint32_t *)pb];
  if (a->cumul != b->cumul) return a->cumul > b->cumul ? -1 : 1;
  return key_cmp(&a->key, &b->key);
}

/* The children of the radix node ending at trie node id with cumul >= min
 * (perf's sort_chain_graph_abs), heaviest first. Caller frees. */
static uint32_t *sorted_children(const struct cc_forest *t, uint32_t id, uint64_t min, size_t *n)
{
  if (min == REL_MIN)            /* perf's __sort_chain_graph_rel: a share of this node's children */
    min = (uint64_t)ceil((double)(t->n[id].cumul - t->n[id].hit) * sort_pct / 100.0);
  uint32_t *v = malloc((t->n[id].nchild ? t->n[id].nchild : 1) * sizeof *v);
  *n = 0;
  if (!v) return NULL;
  for (uint32_t c = t->n[id].child; c; c = t->n[c].sibling)
    if (t->n[c].cumul >= min) v[(*n)++] = c;
  sort_t = t;
  qsort(v, *n, sizeof *v, by_cumul);
  return v;
}

struct out {
  FILE *f;
  const struct cc_forest *t;
  const struct cc_param *p;
  uint64_t min;
  size_t printed;
};

static uint64_t bit(int d) { return d >= 0 && d < 64 ? 1ull << d : 0; }

static void put(struct out *o, const char *s)
{
  o->printed += strlen(s);
  fputs(s, o->f);
}

static void margin(struct out *o, int left)
{
  put(o, "            ");
  for (int i = 0; i < left; i++) put(o, " ");
}

static void value(struct out *o, uint64_t cumul, uint64_t count, uint64_t total)
{
  char b[64];
  if (o->p->value == CC_PERIOD) snprintf(b, sizeof b, "%" PRIu64, cumul);
  else if (o->p->value == CC_COUNT) snprintf(b, sizeof b, "%" PRIu64, count);
  else snprintf(b, sizeof b, "%.2f%%", total ? (double)cumul * 100.0 / (double)total : 0.0);
  put(o, b);
}

static void name(struct out *o, uint32_t id)
{
  char b[1024];
  cc_key_name(&o->t->n[id].key, b, sizeof b);
  put(o, b);
}

static void graph_line(struct out *o, int depth, uint64_t mask, int left)
{
  margin(o, left);
  for (int i = 0; i < depth; i++) put(o, mask & bit(i) ? "|          " : "           ");
  put(o, "\n");
}

/* ipchain__fprintf_graph: one entry of a radix node; the first (period 0)
 * carries the node's value. name_id 0 prints "[...]" (remaining hits). */
static void graph_entry(struct out *o, uint64_t cumul, uint64_t count, uint32_t name_id, int depth,
                        uint64_t mask, int period, uint64_t total, int left)
{
  margin(o, left);
  for (int i = 0; i < depth; i++) {
    put(o, mask & bit(i) ? "|" : " ");
    if (!period && i == depth - 1) {
      put(o, "--");
      value(o, cumul, count, total);
      put(o, "--");
    } else {
      put(o, "          ");
    }
  }
  if (name_id) name(o, name_id);
  else put(o, "[...]");
  put(o, "\n");
}

static void graph(struct out *o, uint32_t parent_end, uint64_t total, int depth, uint64_t depth_mask, int left)
{
  size_t n;
  uint32_t *kids = sorted_children(o->t, parent_end, o->min, &n);
  if (!kids) return;
  uint64_t new_mask = depth_mask, remaining = total;
  unsigned printed = 0;
  for (size_t k = 0; k < n; k++) {
    const struct node *c = &o->t->n[kids[k]];
    remaining -= c->cumul;
    if (k + 1 == n && (o->p->mode != CC_GRAPH_REL || !remaining)) new_mask &= ~bit(depth - 1);
    graph_line(o, depth, depth_mask, left);
    uint32_t end = run_end(o->t, kids[k]), id = kids[k];
    int i = 0;
    for (;;) {
      graph_entry(o, c->cumul, c->cumul_count, id, depth, new_mask, i++, total, left);
      if (id == end) break;
      id = o->t->n[id].child;
    }
    uint64_t new_total = o->p->mode == CC_GRAPH_REL ? o->t->n[end].cumul - o->t->n[end].hit : total;
    graph(o, end, new_total, depth + 1, new_mask | bit(depth), left);
    if (++printed == o->p->print_limit) break;
  }
  if (o->p->mode == CC_GRAPH_REL && remaining && remaining != total) {
    new_mask &= ~bit(depth - 1);
    graph_entry(o, remaining, 0, 0, depth, new_mask, 0, total, left);
  }
  free(kids);
}

static void print_graph(struct out *o, uint32_t root, uint64_t total, uint64_t parent, bool skip_first)
{
  size_t n;
  uint32_t *kids = sorted_children(o->t, root, o->min, &n);
  if (!kids) return;
  int left = 0;
  if (n == 1 && o->t->n[kids[0]].cumul == parent) {   /* need_percent_display() false */
    uint32_t id = kids[0], end = run_end(o->t, id);
    bool printed = false;
    int i = 0;
    for (;;) {
      if (!(i++ == 0 && skip_first)) {
        if (!printed) {
          margin(o, left);
          put(o, "|\n");
          margin(o, left);
          put(o, "---");
          left += 3;
          printed = true;
        } else {
          margin(o, left);
        }
        name(o, id);
        put(o, "\n");
      }
      if (id == end) break;
      id = o->t->n[id].child;
    }
    root = end;
  }
  free(kids);
  if (o->p->mode == CC_GRAPH_REL) total = parent;
  graph(o, root, total, 1, 1, left);
  if (o->printed) put(o, "\n");
}

/* Flat and folded: every radix node with hits >= min, by hits, with its
 * path from the root. */
struct flat { uint32_t *v; size_t n, cap; };

/* perf's __sort_chain_flat: children first, in rb_root_in order. */
static void collect_flat(const struct cc_forest *t, uint32_t id, uint64_t min, struct flat *fl)
{
  size_t n = t->n[id].nchild, k = 0;
  uint32_t *kids = malloc((n ? n : 1) * sizeof *kids);
  if (!kids) return;
  for (uint32_t c = t->n[id].child; c; c = t->n[c].sibling) kids[k++] = c;
  sort_t = t;
  qsort(kids, k, sizeof *kids, by_key);
  for (size_t i = 0; i < k; i++) collect_flat(t, kids[i], min, fl);
  free(kids);
  if (!t->n[id].hit || t->n[id].hit < min || !t->n[id].parent) return;
  if (fl->n == fl->cap) {
    size_t cap = fl->cap ? fl->cap * 2 : 64;
    uint32_t *v = realloc(fl->v, cap * sizeof *v);
    if (!v) return;
    fl->v = v;
    fl->cap = cap;
  }
  fl->v[fl->n++] = id;
}

struct ranked { uint32_t id, order; };
static int by_hit(const void *pa, const void *pb)
{
  const struct ranked *ra = pa, *rb = pb;
  const struct node *a = &sort_t->n[ra->id], *b = &sort_t->n[rb->id];
  if (a->hit != b->hit) return a->hit > b->hit ? -1 : 1;
  return ra->order < rb->order ? -1 : ra->order > rb->order;   /* ties keep insertion order */
}

static void path(struct out *o, uint32_t id, const char *sep, const char *prefix, bool *first)
{
  if (!o->t->n[id].parent) return;
  path(o, o->t->n[id].parent, sep, prefix, first);
  if (prefix) {
    put(o, prefix);
  } else if (!*first) {
    put(o, sep);
  }
  *first = false;
  name(o, id);
  if (prefix) put(o, "\n");
}

static void print_flat(struct out *o, uint32_t root, uint64_t total)
{
  struct flat fl = { 0 };
  collect_flat(o->t, root, o->min, &fl);
  struct ranked *rk = malloc((fl.n ? fl.n : 1) * sizeof *rk);
  if (!rk) { free(fl.v); return; }
  for (size_t i = 0; i < fl.n; i++) rk[i] = (struct ranked){ fl.v[i], (uint32_t)i };
  sort_t = o->t;
  qsort(rk, fl.n, sizeof *rk, by_hit);
  for (size_t i = 0; i < fl.n; i++) fl.v[i] = rk[i].id;
  free(rk);
  for (size_t i = 0; i < fl.n && (!o->p->print_limit || i < o->p->print_limit); i++) {
    const struct node *nd = &o->t->n[fl.v[i]];
    bool first = true;
    if (o->p->mode == CC_FOLDED) {
      value(o, nd->hit, nd->count, total);
      put(o, " ");
      path(o, fl.v[i], ";", NULL, &first);
      put(o, "\n");
    } else {
      put(o, "           ");
      value(o, nd->cumul, nd->cumul_count, total);   /* perf prints the cumulated value but for folded */
      put(o, "\n");
      path(o, fl.v[i], NULL, "                ", &first);
      put(o, "\n");
    }
  }
  free(fl.v);
}

void cc_print(FILE *f, struct cc_forest *t, uint32_t root, const struct cc_param *p, uint64_t total,
              uint64_t parent, bool skip_first)
{
  struct out o = { f, t, p, 0, 0 };
  if (!root || p->mode == CC_NONE) return;
  o.min = p->mode == CC_GRAPH_REL ? REL_MIN : (uint64_t)((double)total * (p->min_percent / 100.0));
  sort_pct = p->min_percent;
  if (p->mode == CC_GRAPH_ABS || p->mode == CC_GRAPH_REL) print_graph(&o, root, total, parent, skip_first);
  else print_flat(&o, root, total);
}

int cc_param_parse(struct cc_param *p, char *arg)
{
  char *list[16];
  size_t n = split_list(arg, list, 16);
  bool threshold = false;
  for (size_t i = 0; i < n; i++) {
    char *w = list[i], *end;
    if (!strcmp(w, "graph")) p->mode = CC_GRAPH_ABS;
    else if (!strcmp(w, "fractal")) p->mode = CC_GRAPH_REL;
    else if (!strcmp(w, "flat")) p->mode = CC_FLAT;
    else if (!strcmp(w, "folded")) p->mode = CC_FOLDED;
    else if (!strcmp(w, "none")) p->mode = CC_NONE;
    else if (!strcmp(w, "caller")) p->caller = true, p->order_set = true;
    else if (!strcmp(w, "callee")) p->caller = false, p->order_set = true;
    else if (!strcmp(w, "function") || !strcmp(w, "fp") || !strcmp(w, "dwarf") || !strcmp(w, "lbr")) ;
    else if (!strcmp(w, "percent")) p->value = CC_PERCENT;
    else if (!strcmp(w, "period")) p->value = CC_PERIOD;
    else if (!strcmp(w, "count")) p->value = CC_COUNT;
    else {
      double v = strtod(w, &end);
      if (end == w || *end || v < 0) return -1;
      if (!threshold) p->min_percent = v, threshold = true;
      else p->print_limit = (unsigned)v;
    }
  }
  return 0;
}

/* ---- paths, for folded stacks ---- */

static int walk(const struct cc_forest *t, uint32_t id, const struct cc_key **stack, size_t depth, size_t max,
                cc_path_fn fn, void *ctx)
{
  int rc;
  if (t->n[id].parent && depth < max) stack[depth++] = &t->n[id].key;
  if (t->n[id].parent && t->n[id].hit && (rc = fn(ctx, stack, depth, t->n[id].hit, t->n[id].count))) return rc;
  for (uint32_t c = t->n[id].child; c; c = t->n[c].sibling)
    if ((rc = walk(t, c, stack, depth, max, fn, ctx))) return rc;
  return 0;
}

int cc_tree_paths(struct cc_forest *t, uint32_t root, cc_path_fn fn, void *ctx)
{
  const struct cc_key *stack[1024];
  if (!root) return 0;
  return walk(t, root, stack, 0, 1024, fn, ctx);
}
