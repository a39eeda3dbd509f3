/* Register sampling for Alpha; see perf_regs.h. Follows the arches'
 * kernel/perf_regs.c and the regs/ustack parts of kernel/events/core.c. */
#include "kernel/perf_regs.h"
#include "guest/mem.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

int perf_reg_validate(uint64_t mask)
{
  if (!mask || (mask & ~PERF_REG_ALPHA_MASK)) return -EINVAL;
  return 0;
}

uint64_t perf_reg_value(const struct perf_regs *regs, int idx)
{
  if (idx < 0 || idx >= PERF_REG_ALPHA_MAX) return 0;
  if ((PERF_REG_ALPHA_SWITCH_STACK_MASK >> idx) & 1) return 0;   /* not in pt_regs */
  return regs->r[idx];
}

size_t perf_regs_size(const struct perf_regs *regs, uint64_t mask)
{
  if (!regs || regs->abi == PERF_SAMPLE_REGS_ABI_NONE) return 8;
  return 8 + 8 * (size_t)__builtin_popcountll(mask);
}

size_t perf_output_regs(uint8_t *p, const struct perf_regs *regs, uint64_t mask)
{
  uint64_t abi = regs ? regs->abi : PERF_SAMPLE_REGS_ABI_NONE;
  memcpy(p, &abi, 8);
  size_t n = 8;
  if (abi == PERF_SAMPLE_REGS_ABI_NONE) return n;
  for (int i = 0; i < 64; i++) {
    if (!((mask >> i) & 1)) continue;
    uint64_t v = perf_reg_value(regs, i);
    memcpy(p + n, &v, 8);
    n += 8;
  }
  return n;
}

/* TASK_SIZE - sp, or 0 for an SP outside user space (perf_ustack_task_size). */
static uint64_t ustack_task_size(uint64_t sp)
{
  return sp > GUEST_TASK_SIZE ? 0 : GUEST_TASK_SIZE - sp;
}

uint16_t perf_sample_ustack_size(uint16_t stack_size, uint16_t header_size, const struct perf_regs *regs_user)
{
  if (!regs_user || regs_user->abi == PERF_SAMPLE_REGS_ABI_NONE) return 0;
  uint64_t task_size = ustack_task_size(regs_user->r[PERF_REG_ALPHA_SP]);
  if (task_size > 0xffff) task_size = 0xffff;
  if (stack_size > task_size) stack_size = (uint16_t)task_size;
  /* the size and dyn_size words */
  uint32_t h = (uint32_t)header_size + 16;
  if (h + stack_size > 0xffff) {
    /* Linux: USHRT_MAX - header_size - sizeof(u64), rounded up to u64 */
    uint32_t s = h + 8 > 0xffff ? 0 : 0xffff - h - 8;
    stack_size = (uint16_t)((s + 7) & ~7u);
  }
  return (uint16_t)((stack_size + 7u) & ~7u);
}
