/* PLT entries as perf names them ("NAME@plt"), checked against oracles that
 * do not share our layout table: on x86-64, the labels objdump gives the
 * entries of the host's libc .plt (an IRELATIVE slot, "*ABS*+0xA@plt" to
 * objdump, takes the name of the function at A, as perf 6.3 names it); on Alpha, where objdump names none, the
 * lazy-binding value the link editor stored in each .rela.plt entry's GOT
 * slot, which is the address of that relocation's own PLT entry. */
#include "check.h"
#include "analysis/symbols.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BASE 0x100000000ull

static struct sym_machine *machine_with(const char *path)
{
  struct sym_machine *m = sym_machine_create(NULL);
  unsigned char rec[40 + 4096] = { 0 };
  struct perf_event_header h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 0 };
  size_t len = strlen(path) + 1, size = (40 + len + 7) & ~(size_t)7;
  uint32_t pid = 1;
  uint64_t v[3] = { BASE, 1ull << 30, 0 };
  h.size = (uint16_t)size;
  memcpy(rec, &h, sizeof h);
  memcpy(rec + 8, &pid, 4);
  memcpy(rec + 12, &pid, 4);
  memcpy(rec + 16, v, sizeof v);
  memcpy(rec + 40, path, len);
  if (!m || sym_machine_record(m, (const struct perf_event_header *)rec)) { sym_machine_destroy(m); return NULL; }
  return m;
}

static const struct sym_symbol *at(struct sym_machine *m, uint64_t vaddr)
{
  struct sym_loc loc;
  sym_resolve(m, 1, PERF_RECORD_MISC_USER, BASE + vaddr, &loc);
  return loc.sym;
}

/* x86-64: objdump's "ADDR <NAME@plt>:" labels; "*ABS*+0x...@plt" (an
 * IRELATIVE slot, no symbol) is perf's "@plt". */
static void x86_against_objdump(const char *lib)
{
  char cmd[512];
  snprintf(cmd, sizeof cmd, "objdump -d -j .plt %s 2>/dev/null", lib);
  FILE *p = popen(cmd, "r");
  struct sym_machine *m = machine_with(lib);
  if (!p || !m) { CHECK(0, "x86-64 %s: objdump and a machine", lib); if (p) pclose(p); sym_machine_destroy(m); return; }
  char line[1024];
  unsigned n = 0, good = 0, header = 0;
  while (fgets(line, sizeof line, p)) {
    unsigned long long a;
    char name[512];
    if (sscanf(line, "%llx <%511[^>]>:", &a, name) != 2) continue;
    size_t l = strlen(name);
    if (l < 4 || strcmp(name + l - 4, "@plt")) {   /* "X@plt-0x10": the header */
      const struct sym_symbol *s = at(m, a);
      header += !s || !strstr(s->name, "@plt");
      continue;
    }
    /* "*ABS*+0xA@plt": an IRELATIVE slot, named by the IFUNC at A */
    char want[600];
    unsigned long long ifunc;
    const struct sym_symbol *r = sscanf(name, "*ABS*+%llx@plt", &ifunc) == 1 ? at(m, ifunc) : NULL;
    if (r && r->start == ifunc) snprintf(want, sizeof want, "%s@plt", r->name);
    else snprintf(want, sizeof want, "%s", name);
    const struct sym_symbol *s = at(m, a), *last = at(m, a + 15);
    n++;
    if (s && s == last && s->start == a && s->end == a + 16 && !strcmp(s->name, want)) good++;
    else if (n - good <= 3)
      printf("note: x86-64 %llx: objdump %s, ours %s\n", a, name, s ? s->name : "(none)");
  }
  pclose(p);
  sym_machine_destroy(m);
  CHECK(n >= 10 && good == n, "x86-64 %s: %u of %u PLT entries named and sized as objdump labels them", lib, good, n);
  CHECK(header == 1, "x86-64 %s: the PLT header is no entry", lib);
}

/* Alpha: for each JMP_SLOT of .rela.plt, the GOT slot's stored value. */
static void alpha_against_got(const char *lib)
{
  int fd = open(lib, O_RDONLY);
  elf_version(EV_CURRENT);
  Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  struct sym_machine *m = machine_with(lib);
  unsigned n = 0, good = 0;
  Elf_Scn *rel = NULL, *dyn = NULL, *plt = NULL;
  GElf_Shdr rsh = { 0 }, dsh = { 0 }, psh = { 0 }, sh;
  size_t shstr;
  if (e && !elf_getshdrstrndx(e, &shstr))
    for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
      const char *nm = gelf_getshdr(s, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;
      if (!nm) continue;
      if (!strcmp(nm, ".rela.plt")) { rel = s; rsh = sh; }
      if (!strcmp(nm, ".plt")) { plt = s; psh = sh; }
      if (sh.sh_type == SHT_DYNSYM) { dyn = s; dsh = sh; }
    }
  if (!rel || !dyn || !plt || !m) {
    CHECK(0, "Alpha %s: .rela.plt, .plt, .dynsym and a machine", lib);
    goto out;
  }
  Elf_Data *rd = elf_getdata(rel, NULL), *sd = elf_getdata(dyn, NULL);
  for (size_t i = 0; rd && sd && i < rsh.sh_size / rsh.sh_entsize; i++) {
    GElf_Rela r;
    GElf_Sym es;
    uint64_t slot = 0;
    if (!gelf_getrela(rd, (int)i, &r) || !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &es)) continue;
    struct sym_loc loc;
    sym_resolve(m, 1, PERF_RECORD_MISC_USER, BASE + psh.sh_addr, &loc);
    if (!loc.dso || sym_dso_read(loc.dso, r.r_offset, &slot, 8) != 8) continue;
    char want[600];
    snprintf(want, sizeof want, "%s@plt", elf_strptr(e, dsh.sh_link, es.st_name));
    const struct sym_symbol *s = at(m, slot);
    n++;
    if (s && s->start == slot && s->end == slot + 4 && !strcmp(s->name, want)) good++;
    else if (n - good <= 3)
      printf("note: Alpha slot %" PRIx64 " -> %" PRIx64 ": want %s, ours %s\n", (uint64_t)r.r_offset, slot, want,
             s ? s->name : "(none)");
  }
  CHECK(n >= 10 && good == n, "Alpha %s: %u of %u PLT entries named as their GOT slots point", lib, good, n);
  const struct sym_symbol *h = at(m, psh.sh_addr);
  CHECK(!h || !strstr(h->name, "@plt"), "Alpha %s: the PLT header is no entry", lib);
out:
  sym_machine_destroy(m);
  if (e) elf_end(e);
  if (fd >= 0) close(fd);
}

/* Aliases: where several functions share an address, perf's
 * choose_best_symbol prefers a sized one, a non-weak one, a global one,
 * fewer leading underscores, the longer name, and on a tie the first in the
 * table (symbols__fixup_duplicate): in libc's symbol table (its libc6-dbg
 * file, which perf and we read) __libc_start_main@@GLIBC_2.34 and
 * __libc_start_main@GLIBC_2.2.5 tie, and perf names the first. The rules
 * over readelf's listing of that table are the oracle; the addresses where
 * a tie decided are counted apart. */
struct alias { unsigned long long a, size; char name[256], bind[32]; unsigned n; bool tie; };

static int alias_rank(const struct alias *x, unsigned long long size, const char *bind, const char *name)
{
  /* > 0: (size, bind, name) is preferred to x; < 0: x is; 0: a tie */
  if (!x->size != !size) return size ? 1 : -1;
  bool xw = !strcmp(x->bind, "WEAK"), w = !strcmp(bind, "WEAK");
  if (xw != w) return xw ? 1 : -1;
  bool xg = !strcmp(x->bind, "GLOBAL"), g = !strcmp(bind, "GLOBAL");
  if (xg != g) return g ? 1 : -1;
  size_t xu = strspn(x->name, "_"), u = strspn(name, "_");
  if (xu != u) return u < xu ? 1 : -1;
  size_t xl = strlen(x->name), l = strlen(name);
  return l > xl ? 1 : l < xl ? -1 : 0;
}

static void x86_aliases_against_readelf(const char *lib)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "id=$(readelf -n %s 2>/dev/null | sed -n 's/.*Build ID: //p'); "
           "f=/usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug; "
           "[ -r \"$f\" ] && readelf -W -s \"$f\" 2>/dev/null | sed -n '/.symtab/,$p'", lib);
  FILE *p = popen(cmd, "r");
  struct sym_machine *m = machine_with(lib);
  if (!p || !m) { CHECK(0, "x86-64 %s: readelf and a machine", lib); if (p) pclose(p); sym_machine_destroy(m); return; }
  enum { MAXF = 16384 };
  static struct alias f[MAXF];
  unsigned nf = 0, n = 0, good = 0, ties = 0, tgood = 0;
  char line[1024];
  while (fgets(line, sizeof line, p) && nf < MAXF) {
    unsigned long long a, size;
    char type[32], bind[32], vis[32], ndx[32], name[256];
    if (sscanf(line, "%*u: %llx %llu %31s %31s %31s %31s %255s", &a, &size, type, bind, vis, ndx, name) != 7 ||
        (strcmp(type, "FUNC") && strcmp(type, "IFUNC")) || !strcmp(ndx, "UND") || !a)
      continue;
    unsigned i = 0;
    while (i < nf && f[i].a != a) i++;
    if (i == nf) {
      f[nf] = (struct alias){ a, size, "", "", 1, false };
      snprintf(f[nf].name, sizeof f[nf].name, "%s", name);
      snprintf(f[nf++].bind, sizeof f[0].bind, "%s", bind);
      continue;
    }
    f[i].n++;
    int r = alias_rank(&f[i], size, bind, name);
    if (r > 0) {
      f[i].size = size;
      snprintf(f[i].name, sizeof f[i].name, "%s", name);
      snprintf(f[i].bind, sizeof f[i].bind, "%s", bind);
      f[i].tie = false;
    } else if (r == 0) {
      f[i].tie = true;
    }
  }
  pclose(p);
  if (!nf) {
    printf("note: %s has no debug symbol table (libc6-dbg): aliases not checked\n", lib);
    sym_machine_destroy(m);
    return;
  }
  for (unsigned i = 0; i < nf; i++) {
    if (f[i].n < 2 || !f[i].size) continue;
    const struct sym_symbol *s = at(m, f[i].a);
    bool ok = s && !strcmp(s->name, f[i].name);
    n++, good += ok;
    ties += f[i].tie, tgood += f[i].tie && ok;
    if (!ok) printf("note: x86-64 aliases at %llx: want %s, ours %s\n", f[i].a, f[i].name, s ? s->name : "(none)");
  }
  CHECK(n >= 10 && good == n && ties >= 1 && tgood == ties,
        "x86-64 %s: %u of %u addresses with aliases named as perf would (%u of %u decided by a tie)", lib, good, n,
        tgood, ties);
  sym_machine_destroy(m);
}

int main(void)
{
  const char *x86 = "/lib/x86_64-linux-gnu/libc.so.6", *alpha = "/usr/alpha-linux-gnu/lib/libc.so.6.1";
  if (access(x86, R_OK) == 0) {
    x86_against_objdump(x86);
    x86_aliases_against_readelf(x86);
  }
  else printf("note: %s missing, x86-64 PLT not checked\n", x86);
  alpha_against_got(alpha);   /* scripts/setup.sh installs it: a missing file fails */
  return check_done();
}
