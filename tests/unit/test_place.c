/* EV67 counter placement against HRM Table 5-16 and the pairs
 * arch/alpha/kernel/perf_event.c makes: instructions on PCTR0, cycles on
 * PCTR1 (SL1=00); B-cache misses on PCTR1 only with instructions (SL1=10);
 * Mbox replays on PCTR1 only with cycles on PCTR0 (SL1=11). */
#include "check.h"
#include "pmu/ev67_pmu.h"

static int place(unsigned ev, unsigned on0, unsigned on1, unsigned *sl1)
{
  unsigned on[2] = { on0, on1 };
  return ev67_place(ev, on, sl1);
}

int main(void)
{
  unsigned s = 9;
  const unsigned N = EV67_EV_NONE, C = EV67_EV_CYCLES, I = EV67_EV_INSTRUCTIONS,
                 B = EV67_EV_BCACHE, M = EV67_EV_MBOX;
  CHECK(place(C, N, N, &s) == 1 && s == 0, "cycles alone: PCTR1, SL1=00");
  CHECK(place(I, N, N, &s) == 0 && s == 0, "instructions alone: PCTR0, SL1=00");
  CHECK(place(B, N, N, &s) == 1 && s == 2, "B-cache misses alone: PCTR1, SL1=10");
  CHECK(place(M, N, N, &s) == 1 && s == 3, "Mbox replays alone: PCTR1, SL1=11");
  CHECK(place(I, N, C, &s) == 0 && s == 0, "instructions next to cycles: SL1=00");
  CHECK(place(B, I, N, &s) == 1 && s == 2, "B-cache misses next to instructions: SL1=10");
  CHECK(place(C, N, M, &s) == 0 && s == 3, "cycles next to Mbox replays: PCTR0, SL1=11");
  CHECK(place(M, N, C, &s) < 0, "Mbox replays cannot join cycles already on PCTR1");
  CHECK(place(B, C, N, &s) < 0, "B-cache misses cannot pair with cycles");
  CHECK(place(M, I, N, &s) < 0, "Mbox replays cannot pair with instructions");
  CHECK(place(C, C, N, &s) < 0, "no row counts cycles on both counters");
  CHECK(place(I, I, N, &s) < 0, "a busy counter is not reused");
  return check_done();
}
