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

int main(void)
{
  const char *x86 = "/lib/x86_64-linux-gnu/libc.so.6", *alpha = "/usr/alpha-linux-gnu/lib/libc.so.6.1";
  if (access(x86, R_OK) == 0) x86_against_objdump(x86);
  else printf("note: %s missing, x86-64 PLT not checked\n", x86);
  alpha_against_got(alpha);   /* scripts/setup.sh installs it: a missing file fails */
  return check_done();
}
