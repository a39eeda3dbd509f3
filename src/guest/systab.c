/* The rows of syscall.def as data, indexed by number (systab.h). Numbers
 * the table skips (53, 119, 545...) have no name and read as NULL. */
#include "guest/systab.h"
#include <stddef.h>

static const struct sysent table[] = {
#define SYSCALL(nr, name, handler, fl, ks) [nr] = { #name, #ks, fl },
#define SYSCALL_NI(nr, name) [nr] = { #name, "sys_other", 0 },
#include "guest/syscall.def"
#undef SYSCALL
#undef SYSCALL_NI
};

const struct sysent *sys_entry(uint64_t nr)
{
  return nr < sizeof table / sizeof table[0] && table[nr].name ? &table[nr] : NULL;
}

uint32_t sys_flags(uint64_t nr)
{
  const struct sysent *e = sys_entry(nr);
  return e ? e->flags : 0;
}
