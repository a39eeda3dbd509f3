/* Tiny test helper in the Redis style: CHECK prints one PASS/FAIL line per
 * assertion, in the format tests/run-all.sh counts; main returns check_done(). */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <inttypes.h>

static int check_failures;

#define CHECK(cond, ...) do { \
    if (cond) { printf("PASS "); printf(__VA_ARGS__); printf("\n"); } \
    else { check_failures++; printf("FAIL "); printf(__VA_ARGS__); \
           printf(": %s (%s:%d)\n", #cond, __FILE__, __LINE__); } \
  } while (0)

#define CHECK_EQ_U64(got, want, ...) do { \
    uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want); \
    if (g_ == w_) { printf("PASS "); printf(__VA_ARGS__); printf("\n"); } \
    else { check_failures++; printf("FAIL "); printf(__VA_ARGS__); \
           printf(": got 0x%" PRIx64 ", want 0x%" PRIx64 " (%s:%d)\n", g_, w_, __FILE__, __LINE__); } \
  } while (0)

static inline int check_done(void) { return check_failures ? 1 : 0; }
#endif
