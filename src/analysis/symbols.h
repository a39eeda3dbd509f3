/* Symbols for the analysis commands, modelled on perf's machine/thread/map/dso:
 * the side-band records of a perf.data file (COMM, FORK, EXIT, MMAP, MMAP2)
 * build per-thread names and per-process address maps; a sampled address is
 * resolved to map, DSO and symbol. DSOs are loaded lazily, once, from their
 * ELF files (.symtab, else .dynsym; any machine type) into sorted arrays;
 * "[kernel.kallsyms]" is the synthetic kernel image (guest/kimage.h). Source
 * lines come from DWARF (libdw), cached per DSO. Nothing here prints.
 *
 * Addresses: `ip` is the sampled run-time address; a DSO's symbols are in its
 * ELF's link-time addresses (`vaddr`); perf prints unresolved user addresses
 * as the map-relative `addr` = ip - map start + pgoff. Every pointer returned
 * stays valid until sym_machine_destroy(). */
#ifndef ANALYSIS_SYMBOLS_H
#define ANALYSIS_SYMBOLS_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_symbol {
  uint64_t start, end;          /* [start, end) in the DSO's link-time addresses */
  const char *name;
};

struct sym_dso {
  const char *path;             /* as recorded: "/usr/bin/x", "[kernel.kallsyms]", "[vdso]" */
  const char *short_name;       /* basename, or the path for "[...]" names */
  bool kernel;
  struct sym_dso_int *in;       /* private: ELF, symbols, DWARF */
};

struct sym_map {
  uint64_t start, end, pgoff;   /* run-time [start, end), file offset of start */
  struct sym_dso *dso;
};

/* Where an address lies. */
struct sym_loc {
  const struct sym_map *map;    /* NULL when no map covers it (and for kernel addresses) */
  struct sym_dso *dso;          /* NULL when unknown */
  const struct sym_symbol *sym; /* NULL when unresolved */
  uint64_t addr;                /* what perf prints for it unresolved (map-relative) */
  uint64_t vaddr;               /* link-time address in dso (== ip for the kernel) */
  char level;                   /* perf's privilege letter: '.' user, 'k' kernel, 'H', 'g', 'u' */
};

struct sym_machine;

/* Creates an empty machine. Files named by MMAP records are opened under
 * symfs (NULL or "" for none), like perf's --symfs. Returns NULL on ENOMEM. */
struct sym_machine *sym_machine_create(const char *symfs);
void sym_machine_destroy(struct sym_machine *m);

/* Applies one side-band record: COMM, FORK, EXIT, MMAP, MMAP2 (others are
 * ignored). Returns 0, or PM_ECORRUPT for a record too short for its type, or
 * PM_ENOMEM. */
int sym_machine_record(struct sym_machine *m, const struct perf_event_header *rec);

/* The command name of thread tid (":tid" as perf shows a thread without a
 * COMM). The string is interned: equal names give equal pointers. */
const char *sym_comm(struct sym_machine *m, uint32_t pid, uint32_t tid);

/* Resolves a sampled instruction address of process pid. cpumode is the
 * sample's PERF_RECORD_MISC_CPUMODE value: kernel modes resolve in
 * "[kernel.kallsyms]". */
void sym_resolve(struct sym_machine *m, uint32_t pid, uint16_t cpumode, uint64_t ip,
                 struct sym_loc *loc);

/* Resolves a data address to an object symbol (loc->sym, NULL when none):
 * through the map covering it, else the non-relocatable executables mapped
 * by pid (their link-time addresses are run-time addresses). */
void sym_resolve_data(struct sym_machine *m, uint32_t pid, uint16_t cpumode, uint64_t addr,
                      struct sym_loc *loc);

/* The function symbol of dso containing link-time address vaddr, or NULL. */
const struct sym_symbol *sym_dso_find(struct sym_dso *dso, uint64_t vaddr);

/* Copies up to len bytes of dso's image at link-time address vaddr into buf.
 * Returns the number of bytes copied (0 when unknown). The synthetic kernel
 * image reads as its one instruction word. */
size_t sym_dso_read(struct sym_dso *dso, uint64_t vaddr, void *buf, size_t len);

/* The instruction word at link-time address vaddr of dso (Alpha words are
 * little-endian). Returns false when it cannot be read. */
bool sym_dso_insn(struct sym_dso *dso, uint64_t vaddr, uint32_t *word);

/* Source file and line of link-time address vaddr from DWARF. Returns true
 * and sets *file (full path as compiled) and *line, or false. */
bool sym_dso_srcline(struct sym_dso *dso, uint64_t vaddr, const char **file, unsigned *line);

/* perf's Symbol column for a sampled address: "[L] name", or "[L] 0x<16 hex
 * digits>" of the map-relative addr when sym is NULL (L: sym_loc's level). */
void sym_column(char level, const struct sym_symbol *sym, uint64_t addr, char *buf, size_t len);

#endif
