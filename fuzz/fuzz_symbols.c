/* libFuzzer harness for the symbol tables of the analysis commands
 * (src/analysis/symbols.c): the bytes are the ELF file a perf.data MMAP record
 * names (any machine type, as a recorded file may name anything), read
 * through an in-memory file. Each input gets a fresh machine; addresses across
 * the mapping, and the addresses the input's own symbols give, are resolved as
 * code and as data, and their instruction words and source lines read. Every
 * symbol returned must contain the address it was asked for. */
#include "analysis/symbols.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0x120000000ull
#define LEN  0x100000ull

static int mmap_record(struct sym_machine *m, const char *path)
{
  unsigned char rec[40 + 64] = { 0 };
  size_t len = strlen(path) + 1, sz = (40 + len + 7) & ~(size_t)7;
  struct perf_event_header h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, (uint16_t)sz };
  uint32_t pid = 7;
  uint64_t v[3] = { BASE, LEN, 0 };
  if (sz > sizeof rec) abort();
  memcpy(rec, &h, sizeof h);
  memcpy(rec + 8, &pid, 4);
  memcpy(rec + 12, &pid, 4);
  memcpy(rec + 16, v, sizeof v);
  memcpy(rec + 40, path, len);
  return sym_machine_record(m, (const struct perf_event_header *)rec);
}

static void probe(struct sym_machine *m, uint64_t ip)
{
  struct sym_loc loc;
  sym_resolve(m, 7, PERF_RECORD_MISC_USER, ip, &loc);
  if (loc.sym) {
    if (loc.vaddr < loc.sym->start || loc.vaddr >= loc.sym->end || !loc.sym->name) abort();
    if (sym_dso_find(loc.dso, loc.vaddr) != loc.sym) abort();
  }
  if (loc.dso) {
    uint32_t w;
    const char *file;
    unsigned line;
    (void)sym_dso_insn(loc.dso, loc.vaddr, &w);
    if (sym_dso_srcline(loc.dso, loc.vaddr, &file, &line) && !file) abort();
  }
  sym_resolve_data(m, 7, PERF_RECORD_MISC_USER, ip, &loc);
  if (loc.sym && !loc.sym->name) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("fuzz_symbols", 0);
    if (fd < 0) abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) abort();
  struct sym_machine *m = sym_machine_create(NULL);
  if (!m) abort();
  if (mmap_record(m, path) == 0) {
    for (uint64_t off = 0; off < LEN; off += 0x1001) probe(m, BASE + off);
    /* the first function's neighbourhood, wherever the input put it */
    struct sym_loc loc;
    sym_resolve(m, 7, PERF_RECORD_MISC_USER, BASE + 0x1000, &loc);
    if (loc.sym) for (int i = -2; i < 34; i++) probe(m, BASE + (loc.sym->start + (uint64_t)(i * 4)) % LEN);
  }
  sym_machine_destroy(m);
  return 0;
}
