/* `profileme flamegraph`: the samples' call stacks as a flame graph, an SVG
 * file with no outside reference (Brendan Gregg's FlameGraph layout: one
 * box per frame, its width proportional to the samples under it, callers
 * below callees, siblings in name order), or with --folded the collapsed
 * stacks FlameGraph's flamegraph.pl and speedscope read ("comm;caller;...;
 * callee COUNT", as stackcollapse-perf.pl writes them: "[dso]" for a frame
 * without a symbol). Stacks are the ones report -g sees (cc_sample_frames). */
#include "analysis/callchain.h"
#include "tools/commands.h"
#include "util/err.h"
#include "analysis/hist.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A frame of the merged stacks. name is interned (symbols, comms, DSO
 * names stay valid until the session closes); bracket: print "[name]". */
struct fnode { const char *name; bool bracket; uint32_t parent, child, sibling; uint64_t total, self; };
/* Frames merge by their printed name (two DSOs' "_start" are one frame, as
 * in flamegraph.pl): the index is keyed by a hash of it, checked on a hit. */
struct fedge { uint32_t parent, bracket; uint64_t hash; };

struct flame {
  struct fnode *n;
  size_t len, cap;
  struct hist *index;
  bool folded, by_period, with_comm;
  int width;
  const char *title;
  struct cc_frames frames;
  struct cc_unwinder uw;
  uint64_t samples;
};

static bool same_name(const struct fnode *nd, const char *name, bool bracket)
{
  return nd->bracket == bracket && !strcmp(nd->name, name);
}

static uint32_t child_of(struct flame *fl, uint32_t parent, const char *name, bool bracket)
{
  struct fedge e;
  memset(&e, 0, sizeof e);
  e.parent = parent;
  e.bracket = bracket;
  e.hash = 14695981039346656037ull;
  for (const char *p = name; *p; p++) e.hash = (e.hash ^ (unsigned char)*p) * 1099511628211ull;
  uint32_t *slot = hist_get(fl->index, &e);
  if (!slot) return 0;
  if (*slot && same_name(&fl->n[*slot], name, bracket)) return *slot;
  if (*slot) {                   /* a hash collision: look among the siblings */
    for (uint32_t c = fl->n[parent].child; c; c = fl->n[c].sibling)
      if (same_name(&fl->n[c], name, bracket)) return c;
    slot = NULL;
  }
  if (fl->len == fl->cap) {
    size_t cap = fl->cap ? fl->cap * 2 : 256;
    struct fnode *n = realloc(fl->n, cap * sizeof *n);
    if (!n) return 0;
    fl->n = n;
    fl->cap = cap;
  }
  uint32_t id = (uint32_t)fl->len++;
  fl->n[id] = (struct fnode){ name, bracket, parent, 0, fl->n[parent].child, 0, 0 };
  fl->n[parent].child = id;
  if (slot) *slot = id;          /* the index did not grow since: slot is still valid */
  return id;
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct flame *fl = ctx;
  if (!r->sample) return 0;
  const struct pd_sample *smp = r->sample;
  int e = cc_sample_frames(s, smp, fl->uw.unwind ? &fl->uw : NULL, &fl->frames);
  if (e) return e;
  uint64_t w = fl->by_period ? smp->period : 1;
  uint32_t cur = 0;
  fl->n[0].total += w;
  fl->samples++;
  if (fl->with_comm) {
    if (!(cur = child_of(fl, cur, sym_comm(s->m, smp->pid, smp->tid), false))) return PM_ENOMEM;
    fl->n[cur].total += w;
  }
  struct cc_frame self = { smp->ip, smp->cpumode };
  const struct cc_frame *f = fl->frames.f;
  size_t n = fl->frames.n;
  if (!n) f = &self, n = 1;        /* no chain: the sampled function alone */
  for (size_t i = n; i-- > 0;) {   /* callers first */
    struct sym_loc loc;
    sym_resolve(s->m, smp->pid, f[i].cpumode, f[i].ip, &loc);
    const char *name = loc.sym ? loc.sym->name : loc.dso ? loc.dso->short_name : "unknown";
    if (!(cur = child_of(fl, cur, name, !loc.sym))) return PM_ENOMEM;
    fl->n[cur].total += w;
  }
  fl->n[cur].self += w;
  return 0;
}

static void fname(const struct fnode *nd, char *buf, size_t len)
{
  snprintf(buf, len, nd->bracket ? "[%s]" : "%s", nd->name);
}

/* By the names as printed (flamegraph.pl sorts the folded lines). */
static int name_cmp(const struct fnode *a, const struct fnode *b)
{
  char x[1024], y[1024];
  fname(a, x, sizeof x);
  fname(b, y, sizeof y);
  return strcmp(x, y);
}

static const struct flame *sort_fl;
static int by_name(const void *a, const void *b)
{
  return name_cmp(&sort_fl->n[*(const uint32_t *)a], &sort_fl->n[*(const uint32_t *)b]);
}

/* The children of id in name order (caller frees). */
static uint32_t *kids_of(const struct flame *fl, uint32_t id, size_t *k)
{
  size_t n = 0;
  for (uint32_t c = fl->n[id].child; c; c = fl->n[c].sibling) n++;
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  *k = 0;
  if (!v) return NULL;
  for (uint32_t c = fl->n[id].child; c; c = fl->n[c].sibling) v[(*k)++] = c;
  sort_fl = fl;
  qsort(v, *k, sizeof *v, by_name);
  return v;
}

/* ---- folded ---- */

static void print_folded(FILE *out, const struct flame *fl, uint32_t id, char *path, size_t len)
{
  char nm[1024];
  size_t l = len;
  if (id) {
    fname(&fl->n[id], nm, sizeof nm);
    int w = snprintf(path + len, 8192 - len, "%s%s", len ? ";" : "", nm);
    l = len + (w > 0 && (size_t)w < 8192 - len ? (size_t)w : 0);
    if (fl->n[id].self) fprintf(out, "%s %" PRIu64 "\n", path, fl->n[id].self);
  }
  size_t k;
  uint32_t *v = kids_of(fl, id, &k);
  for (size_t i = 0; v && i < k; i++) print_folded(out, fl, v[i], path, l);
  free(v);
  path[len] = '\0';
}

/* ---- SVG ---- */

enum { FRAME_H = 16, FONT = 12, XPAD = 10, YPAD1 = 3 * FONT, YPAD2 = 2 * FONT + 10 };

static void xml_text(FILE *out, const char *s, size_t max)
{
  for (size_t i = 0; s[i] && i < max; i++) {
    switch (s[i]) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    default: if ((unsigned char)s[i] >= 0x20) fputc(s[i], out);
    }
  }
}

/* flamegraph.pl's "hot" palette, from a hash of the name so a function
 * keeps its colour across graphs. */
static void colour(const char *name, int *r, int *g, int *b)
{
  uint64_t h = 1469598103934665603ull;
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  double v1 = (double)(h & 0xff) / 255.0, v2 = (double)(h >> 8 & 0xff) / 255.0, v3 = (double)(h >> 16 & 0xff) / 255.0;
  *r = 205 + (int)(50 * v3);
  *g = (int)(230 * v1);
  *b = (int)(55 * v2);
}

static int depth_of(const struct flame *fl, uint32_t id)
{
  size_t k;
  int d = 0;
  uint32_t *v = kids_of(fl, id, &k);
  for (size_t i = 0; v && i < k; i++) {
    int c = depth_of(fl, v[i]);
    if (c > d) d = c;
  }
  free(v);
  return d + 1;
}

static void svg_frames(FILE *out, const struct flame *fl, uint32_t id, double x, int depth, double scale,
                       int height, uint64_t total)
{
  const struct fnode *nd = &fl->n[id];
  double w = (double)nd->total * scale;
  if (w < 0.1) return;             /* flamegraph.pl's minwidth */
  char nm[1024];
  if (id) fname(nd, nm, sizeof nm);
  else snprintf(nm, sizeof nm, "all");
  double y = height - YPAD2 - (depth + 1) * FRAME_H;
  int r, g, b;
  colour(nm, &r, &g, &b);
  if (!id) r = 250, g = 200, b = 50;
  fprintf(out, "<g><title>");
  xml_text(out, nm, sizeof nm);
  fprintf(out, " (%" PRIu64 " %s, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
          nd->total, fl->by_period ? "period" : "samples", total ? 100.0 * (double)nd->total / (double)total : 0.0,
          x, y, w, FRAME_H - 1, r, g, b);
  size_t fit = (size_t)((w - 3) / (FONT * 0.59));
  if (fit >= 3) {
    size_t l = strlen(nm);
    fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5);
    if (l <= fit) xml_text(out, nm, l);
    else xml_text(out, nm, fit - 2), fputs("..", out);
    fputs("</text>", out);
  }
  fputs("</g>\n", out);
  size_t k;
  uint32_t *v = kids_of(fl, id, &k);
  double cx = x;
  for (size_t i = 0; v && i < k; i++) {
    svg_frames(out, fl, v[i], cx, depth + 1, scale, height, total);
    cx += (double)fl->n[v[i]].total * scale;
  }
  free(v);
}

static void print_svg(FILE *out, const struct flame *fl)
{
  int depth = depth_of(fl, 0);
  int height = depth * FRAME_H + YPAD1 + YPAD2;
  uint64_t total = fl->n[0].total;
  double scale = total ? (double)(fl->width - 2 * XPAD) / (double)total : 0;
  fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
               "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "xmlns=\"http://www.w3.org/2000/svg\">\n", fl->width, height, fl->width, height);
  fprintf(out, "<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); pointer-events: none; }"
               " rect:hover { stroke: black; stroke-width: 0.5; }</style>\n", FONT);
  fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(245,245,225)\"/>\n", fl->width, height);
  fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" style=\"font-size: 17px\">", fl->width / 2, FONT * 2);
  xml_text(out, fl->title, 200);
  fprintf(out, "</text>\n<text x=\"%d\" y=\"%d\">%" PRIu64 " samples, widths by %s</text>\n", XPAD, height - FONT / 2,
          fl->samples, fl->by_period ? "period" : "samples");
  svg_frames(out, fl, 0, XPAD, -1, scale, height, total);
  fputs("</svg>\n", out);
}

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme flamegraph [-i FILE] [-o OUT] [--folded] [OPTIONS]\n"
    "Draws the call stacks of a perf.data file as a flame graph (SVG, self-contained).\n"
    "  -i, --input FILE   perf.data file (default: perf.data)\n"
    "  -o, --output OUT   write there (default: stdout)\n"
    "      --folded       collapsed stacks \"comm;caller;...;callee COUNT\" (FlameGraph, speedscope)\n"
    "      --period       weigh by sample period instead of counting samples\n"
    "      --no-comm      no command name at the base of each stack\n"
    "      --title TEXT   the graph's title (default \"Flame Graph\")\n"
    "      --width N      image width in pixels (default 1200)\n"
    "      --symfs DIR    look for the recorded files under DIR\n"
    "Exit status: 0 success, 1 unreadable or malformed input, 2 bad options.\n");
}

int cmd_flamegraph(int argc, char **argv)
{
  enum { O_FOLDED = 256, O_PERIOD, O_NO_COMM, O_TITLE, O_WIDTH, O_SYMFS };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "output", required_argument, NULL, 'o' },
    { "folded", no_argument, NULL, O_FOLDED }, { "period", no_argument, NULL, O_PERIOD },
    { "no-comm", no_argument, NULL, O_NO_COMM }, { "title", required_argument, NULL, O_TITLE },
    { "width", required_argument, NULL, O_WIDTH }, { "symfs", required_argument, NULL, O_SYMFS },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  struct flame fl = { .with_comm = true, .width = 1200, .title = "Flame Graph" };
  const char *input = NULL, *output = NULL, *symfs = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case 'o': output = optarg; break;
    case O_FOLDED: fl.folded = true; break;
    case O_PERIOD: fl.by_period = true; break;
    case O_NO_COMM: fl.with_comm = false; break;
    case O_TITLE: fl.title = optarg; break;
    case O_WIDTH:
      fl.width = atoi(optarg);
      if (fl.width < 100 || fl.width > 100000) {
        fprintf(stderr, "profileme flamegraph: bad --width '%s' (100 to 100000)\n", optarg);
        return 2;
      }
      break;
    case O_SYMFS: symfs = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "profileme flamegraph: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  struct session s;
  if (session_open(&s, input, symfs)) {
    fprintf(stderr, "profileme flamegraph: %s\n", s.err);
    return 1;
  }
  int rc = 1;
  bool dwarf;
  cc_file_has_chains(&s, &dwarf);
  if (dwarf) cc_unwinder_for(&s, &fl.uw);
  fl.index = hist_create(sizeof(struct fedge), sizeof(uint32_t));
  fl.n = calloc(256, sizeof *fl.n);
  fl.cap = 256;
  fl.len = 1;
  FILE *out = NULL;
  if (!fl.index || !fl.n) {
    fprintf(stderr, "profileme flamegraph: %s\n", pm_strerror(PM_ENOMEM));
  } else if (session_run(&s, on_record, &fl)) {
    fprintf(stderr, "profileme flamegraph: %s: %s\n", s.path, s.err);
  } else if (!(out = output ? fopen(output, "w") : stdout)) {
    fprintf(stderr, "profileme flamegraph: cannot write %s\n", output);
  } else {
    if (fl.folded) {
      char *path = calloc(1, 8192);
      if (path) print_folded(out, &fl, 0, path, 0);
      free(path);
    } else {
      print_svg(out, &fl);
    }
    rc = (out != stdout ? fclose(out) : fflush(out)) ? 1 : 0;
    if (rc) fprintf(stderr, "profileme flamegraph: write error\n");
  }
  hist_destroy(fl.index);
  free(fl.n);
  cc_frames_free(&fl.frames);
  cc_unwinder_release(&fl.uw);
  session_close(&s);
  return rc;
}
