/* The what-if parameter table (uarch/config.c): every row's default lies in
 * its own range; KEY=VALUE lists parse, with sizes and blanks, and every
 * refused item says why; relations are checked once every list is in; the
 * formatted list reads back to the same machine; and the model holds every
 * accepted extreme: a model at each row's minimum and maximum (the others
 * at their defaults) runs a stream of loads, stores, multiplies, FP divides
 * and random branches over 16 MB with its invariant checks on (DEBUG=1,
 * SAN=1). */
#include <string.h>
#include "check.h"
#include "uarch/ev67.h"

/* Alpha encodings (AAH 3.3): memory, operate (register and literal), branch, FP. */
#define MEM(op, ra, rb, d) ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(rb) << 16 | ((uint32_t)(d) & 0xFFFF))
#define OPR(op, fn, ra, rb, rc) ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(rb) << 16 | (uint32_t)(fn) << 5 | (rc))
#define OPL(op, fn, ra, lit, rc) ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(lit) << 13 | 1u << 12 | (uint32_t)(fn) << 5 | (rc))
#define BR(op, ra, d) ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | ((uint32_t)(d) & 0x1FFFFF))

static void test_table(void)
{
  size_t n;
  const struct ev67_param *p = ev67_params(&n);
  int bad = 0, dup = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned v = ev67_param_get(&ev67_default_config, &p[i]);
    if (v < p[i].min || v > p[i].max || ((p[i].flags & EV67_PARAM_POW2) && (v & (v - 1))) ||
        ((p[i].flags & EV67_PARAM_MUL4) && v % 4) || p[i].offset + sizeof v > sizeof(struct ev67_config) ||
        !*p[i].what || !*p[i].source || !*p[i].limits) {
      printf("# row %s: default %u outside its own row\n", p[i].key, v);
      bad++;
    }
    for (size_t j = 0; j < i; j++) dup += p[j].offset == p[i].offset || !strcmp(p[j].key, p[i].key);
    if (ev67_param_find(p[i].key) != &p[i]) bad++;
  }
  CHECK(n >= 50 && !bad, "%zu rows, each default within its range, flags and described", n);
  CHECK(!dup, "no two rows name one field or key");
  char why[256];
  CHECK(!ev67_config_check(&ev67_default_config, why, sizeof why), "the HRM's defaults pass the relation checks");
  char buf[4096];
  CHECK(ev67_config_format(&ev67_default_config, false, buf, sizeof buf) == 0 && !*buf,
        "the defaults format as an empty list of changes");
}

static void test_parse(void)
{
  struct ev67_config c = ev67_default_config;
  char why[256] = "";
  int r = ev67_config_parse(&c, " inflight = 160 ,l1d_bytes=32K\nbcache_bytes=8m,,mem_latency=0", why, sizeof why);
  CHECK(!r && c.inflight == 160 && c.l1d_bytes == 32768 && c.bcache_bytes == 8u << 20 && c.mem_latency == 0,
        "a list with blanks, newlines, empty items and K/M suffixes sets what it names (%s)", why);
  static const struct { const char *item, *why; } refused[] = {
    { "inflight=6", "inflight=6: want a multiple of 4 from 4 to 512 (inums are allocated in groups of four" },
    { "inflight=516", "inflight=516: out of range: want a multiple of 4 from 4 to 512" },
    { "fetch_width=0", "fetch_width=0: out of range: want a power of two from 1 to 16" },
    { "global_entries=3000", "global_entries=3000: want a power of two from 1 to 65536 (the index is a mask" },
    { "lat_imul=256", "lat_imul=256: out of range: want a whole number from 1 to 255 (a class latency is held in 8 bits)" },
    { "l1d_bytes=64", "l1d_bytes=64: out of range: want a whole number from 1K to 1M" },
    { "bcache_bytes=4G", "bcache_bytes=4G: out of range: want a power of two from 64K to 64M" },
    { "bcache_bytes=99999999999999999999", "out of range" },
    { "mem_latency=1e3", "mem_latency=1e3: not a number: want a whole number from 0 to 2000" },
    { "inflight=0x50", "inflight=0x50: not a number" },
    { "lat_iadd=2K", "lat_iadd=2K: not a number" },
    { "windowsize=160", "'windowsize': no such parameter" },
    { "=4", "'=4': want KEY=VALUE" },
    { "inflight= ", "'inflight=': want KEY=VALUE" },
  };
  int ok = 0;
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    struct ev67_config d = ev67_default_config;
    why[0] = 0;
    int e = ev67_config_parse(&d, refused[i].item, why, sizeof why);
    if (e == -1 && strstr(why, refused[i].why) && !memcmp(&d, &ev67_default_config, sizeof d)) ok++;
    else printf("# '%s': %d, '%s'\n", refused[i].item, e, why);
  }
  CHECK(ok == (int)(sizeof refused / sizeof refused[0]), "%d refused items each say why and change nothing", ok);
  static const struct { const char *list, *why; } relations[] = {
    { "l1d_ways=3", "l1d_bytes=65536 with l1d_ways=3 and line_bytes=64: 65536 bytes is not a power-of-two number of sets" },
    { "l1i_bytes=48K", "l1i_bytes=49152 with l1i_ways=2" },
    { "fetch_width=16,line_bytes=32", "fetch_width=16 with line_bytes=32: a fetch block of 64 bytes must lie in one cache line" },
    { "lat_ld_fp=2", "lat_ld_fp=2 below lat_ld_int=3" },
    { "lat_ld_int=20,lat_ld_fp=20", "bcache_latency=13 below lat_ld_int=20" },
  };
  ok = 0;
  for (size_t i = 0; i < sizeof relations / sizeof relations[0]; i++) {
    struct ev67_config d = ev67_default_config;
    why[0] = 0;
    int e = ev67_config_parse(&d, relations[i].list, why, sizeof why);
    int k = ev67_config_check(&d, why, sizeof why);
    if (!e && k == -1 && strstr(why, relations[i].why) && !ev67_create(&d, NULL, NULL, NULL)) ok++;
    else printf("# '%s': parse %d check %d, '%s'\n", relations[i].list, e, k, why);
  }
  CHECK(ok == (int)(sizeof relations / sizeof relations[0]),
        "%d lists valid item by item are refused together, saying why, and by ev67_create", ok);
  struct ev67_config d = ev67_default_config;
  r = ev67_config_parse(&d, "l1d_ways=3", why, sizeof why) || ev67_config_parse(&d, "l1d_bytes=96K", why, sizeof why) ||
      ev67_config_check(&d, why, sizeof why);
  CHECK(!r && d.l1d_ways == 3 && d.l1d_bytes == 96u << 10, "l1d_ways=3 then l1d_bytes=96K: checked once both are in");
}

static void test_format(void)
{
  struct ev67_config c = ev67_default_config, back = ev67_default_config;
  char why[256], all[4096], diff[512];
  ev67_config_parse(&c, "inflight=160,l1d_bytes=32K,bcache_bytes=16M,ras_entries=16,mem_latency=200", why, sizeof why);
  size_t n = ev67_config_format(&c, true, all, sizeof all);
  int r = ev67_config_parse(&back, all, why, sizeof why);
  CHECK(n == strlen(all) && !r && !memcmp(&c, &back, sizeof c), "the whole list reads back to the same machine (%zu bytes)", n);
  ev67_config_format(&c, false, diff, sizeof diff);
  CHECK(!strcmp(diff, "ras_entries=16,inflight=160,l1d_bytes=32K,bcache_bytes=16M,mem_latency=200"),
        "the changes alone, in table order, sizes in K and M: '%s'", diff);
  char small[20];
  size_t need = ev67_config_format(&c, false, small, sizeof small);
  CHECK(need == strlen(diff) && !strcmp(small, "ras_entries=16"), "a short buffer keeps whole items and says what was needed ('%s', %zu)", small, need);
}

/* A stream: a 16-instruction loop of loads and stores striding over 16 MB,
 * adds, a multiply, a shift, FP add and divide, and a branch taken at random. */
static int run_stream(const struct ev67_config *c)
{
  static const uint32_t words[] = {
    MEM(0x29, 1, 2, 0),                 /* ldq $1,0($2) */
    OPL(0x10, 0x20, 2, 72, 2),          /* addq $2,72,$2 */
    MEM(0x2D, 1, 3, 8),                 /* stq $1,8($3) */
    MEM(0x29, 4, 3, 8),                 /* ldq $4,8($3): after the store */
    OPR(0x13, 0x20, 1, 4, 5),           /* mulq $1,$4,$5 */
    OPL(0x12, 0x39, 5, 3, 6),           /* sll $5,3,$6 */
    OPR(0x16, 0x0A0, 1, 2, 3),          /* addt $f1,$f2,$f3 */
    OPR(0x16, 0x0A3, 3, 2, 4),          /* divt $f3,$f2,$f4 */
    OPR(0x10, 0x20, 6, 1, 7),           /* addq $6,$1,$7 */
    OPR(0x10, 0x20, 7, 5, 8),
    OPR(0x11, 0x20, 8, 8, 9),           /* bis (or) */
    MEM(0x29, 10, 2, 64),               /* ldq $10,64($2) */
    OPR(0x10, 0x20, 10, 9, 11),
    OPR(0x10, 0x20, 11, 11, 12),
    OPL(0x10, 0x29, 12, 1, 13),         /* subq */
    BR(0x3D, 13, -16),                  /* bne $13, back to the top */
  };
  enum { N = sizeof words / sizeof words[0] };
  struct axp_insn d[N];
  for (int i = 0; i < N; i++) d[i] = axp_decode(words[i]);
  struct ev67 *m = ev67_create(c, NULL, NULL, NULL);
  if (!m) return -1;
  uint64_t s = 0x9E3779B97F4A7C15ull, base = 0x120000000ull, data = 0x200000000ull;
  for (int it = 0; it < 400; it++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    for (int i = 0; i < N; i++) {
      uint64_t pc = base + 4 * (uint64_t)i;
      struct uarch_insn ui = { .pc = pc, .d = &d[i], .next_pc = pc + 4, .asn = 1 };
      if (i == 0 || i == 11) ui.ea = data + (uint64_t)it * 40968 % (16u << 20) + (i ? 64 : 0);
      if (i == 2 || i == 3) ui.ea = data + 8 * (s % 64);
      if (i == N - 1) { ui.taken = s & 1; ui.next_pc = ui.taken ? base : pc + 4; }
      ev67_step(m, &ui);
    }
  }
  int ok = ev67_stats(m, false)->retired >= 400 * N && ev67_now(m) > 0;
  ev67_destroy(m);
  return ok ? 0 : -2;
}

static void test_extremes(void)
{
  size_t n;
  const struct ev67_param *p = ev67_params(&n);
  int ran = 0, refused = 0, broke = 0;
  for (size_t i = 0; i < n; i++)
    for (int hi = 0; hi < 2; hi++) {
      struct ev67_config c = ev67_default_config;
      char item[96], why[256];
      snprintf(item, sizeof item, "%s=%u", p[i].key, hi ? p[i].max : p[i].min);
      if (ev67_config_parse(&c, item, why, sizeof why)) { broke++; printf("# %s: %s\n", item, why); continue; }
      if (ev67_config_check(&c, why, sizeof why)) { refused++; continue; }   /* a relation with a default */
      int r = run_stream(&c);
      if (r) { broke++; printf("# %s: the model %s\n", item, r == -1 ? "refused it" : "did not retire the stream"); }
      else ran++;
    }
  printf("# extremes: %d ran, %d refused by a relation with the defaults\n", ran, refused);
  CHECK(!broke && ran >= 2 * (int)n - 8, "the model runs every row at its minimum and maximum (%d runs)", ran);
  CHECK(!run_stream(&ev67_default_config), "and the HRM's machine");
}

int main(void)
{
  test_table();
  test_parse();
  test_format();
  test_extremes();
  return check_done();
}
