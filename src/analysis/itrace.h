/* The trace unit's packet decoder (issue 11), in the structure of perf's
 * intel-pt decoder: a packet layer (itrace_pkt_parse: bytes to one packet,
 * intel-pt-pkt-decoder.c) and a flow layer (itrace_decoder: packets plus the
 * program's code to the instructions that ran, intel-pt-decoder.c). The
 * packet format is docs/trace-tools.md's (the trace unit's spec, shared with
 * the unit's author). The decoder is fed the byte stream of one CPU in
 * pieces (AUXTRACE buffers), keeps a packet cut by a piece boundary, and
 * hands out one block per TAKEN/TIP/ASYNC/STOP packet: n instructions from a
 * start PC and where control went next. Errors carry the stream offset, the
 * PC and the reason; after one the decoder drops sync and resumes at the
 * next PSB, as perf's decoders do. Code is read through a callback (the tools
 * read it from the ELF files MMAP2 records name). Nothing here prints. */
#ifndef ANALYSIS_ITRACE_H
#define ANALYSIS_ITRACE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Our PERF_RECORD_AUXTRACE_INFO type. perf 6.1's enum auxtrace_type ends at
 * 6 (HISI_PTT); this one is far from any number perf will take (perf aborts
 * on it: `profileme inject --itrace` converts the trace into samples). */
#define ITRACE_AUXTRACE_TYPE 0x4556u          /* "VE": the EV67 trace unit */
/* AUXTRACE_INFO priv[] words after type/reserved. */
enum {
  ITRACE_PRIV_PMU_TYPE,                        /* attr.type of the trace PMU */
  ITRACE_PRIV_CLOCK_MHZ,                       /* core clock: ns = cycle * 1000 / MHz */
  ITRACE_PRIV_SNAPSHOT,                        /* 1: snapshot mode recording */
  ITRACE_PRIV_N
};

enum itrace_pkt_type {
  ITRACE_PAD = 0x00, ITRACE_PSB = 0x01, ITRACE_TAKEN = 0x02, ITRACE_TIP = 0x03, ITRACE_ASYNC = 0x04,
  ITRACE_PID = 0x05, ITRACE_MODE = 0x06, ITRACE_OVF = 0x07, ITRACE_STOP = 0x08, ITRACE_NPKT
};
/* ASYNC kinds. */
enum { ITRACE_A_SYSCALL = 1, ITRACE_A_INTERRUPT, ITRACE_A_FAULT, ITRACE_A_SIGNAL, ITRACE_A_SIGRETURN,
       ITRACE_A_EXEC, ITRACE_A_INTR_SIGNAL, ITRACE_A_MAX = ITRACE_A_INTR_SIGNAL };
#define ITRACE_MODE_MAX 2                      /* 0 user, 1 kernel, 2 PAL */
#define ITRACE_MAX_PKT 30                      /* ASYNC: 1 + 10 + 10 + 1 + 8 */
/* The longest sequential run the decoder walks: a larger n cannot be code
 * (it would be 64 MB of straight-line instructions) and is an error. */
#define ITRACE_MAX_RUN (1ull << 24)

struct itrace_packet {
  uint8_t type;                                /* enum itrace_pkt_type */
  uint8_t mode, kind;                          /* PSB/MODE mode; ASYNC kind */
  uint32_t pid, tid;                           /* PSB, PID */
  uint64_t n, dcyc;                            /* TAKEN, TIP, ASYNC, STOP */
  uint64_t pc;                                 /* PSB pc, TIP target, ASYNC resume */
  uint64_t cycle, lost;                        /* PSB/OVF cycle, OVF lost bytes */
};

/* Parses the packet at buf[0..len). Returns its length, 0 when buf ends
 * inside it (more bytes needed), or -1 with *why set for bytes that are no
 * packet (unknown header, a uleb longer than 10 bytes, a bad mode or kind). */
int itrace_pkt_parse(const uint8_t *buf, size_t len, struct itrace_packet *p, const char **why);
/* The packet's name ("TAKEN"), or "?" */
const char *itrace_pkt_name(unsigned type);
/* One line describing a packet, as perf -D prints intel-pt packets. */
void itrace_pkt_desc(const struct itrace_packet *p, char *buf, size_t len);

/* How a block ended. */
enum itrace_end { ITRACE_END_TAKEN = 1, ITRACE_END_TIP, ITRACE_END_ASYNC, ITRACE_END_STOP };
/* What the last instruction of a block is (perf's branch flags). */
#define ITRACE_F_BRANCH  0x01                   /* it is a taken branch (TAKEN, TIP) */
#define ITRACE_F_CALL    0x02                   /* bsr, jsr, jsr_coroutine */
#define ITRACE_F_RETURN  0x04                   /* ret */
#define ITRACE_F_COND    0x08                   /* a conditional branch */
#define ITRACE_F_SYSCALL 0x10                   /* ASYNC syscall: callsys */
#define ITRACE_F_ASYNC   0x20                   /* ASYNC other than syscall */

struct itrace_block {
  uint32_t pid, tid;
  uint8_t mode;
  uint8_t end;                                 /* enum itrace_end */
  uint8_t async;                               /* ASYNC kind */
  uint8_t flags;                               /* ITRACE_F_* */
  uint64_t start, n;                           /* instructions start, start + 4, ..., start + 4(n-1) */
  uint64_t to;                                 /* where control went (0 after STOP) */
  uint64_t cycle;                              /* absolute cycle at the end of the block */
  uint64_t offset;                             /* stream offset of the packet that ended it */
};

struct itrace_error {
  uint64_t offset;                             /* stream offset of the packet (or byte) */
  uint64_t pc;                                 /* the PC the decoder was at (0: none) */
  uint32_t pid, tid;
  bool overflow;                               /* an OVF packet: data lost in the unit */
  char msg[200];                               /* the reason */
};

struct itrace_ops {
  /* Copies up to max instruction words of task pid's code at pc into words;
   * returns how many (0: no code there). */
  size_t (*read_code)(void *ctx, uint32_t pid, uint8_t mode, uint64_t pc, uint32_t *words, size_t max);
  /* A decoded block; a non-zero return stops itrace_decode with it. */
  int (*block)(void *ctx, const struct itrace_block *b);
  /* A decode error (optional). The decoder resyncs at the next PSB. */
  void (*error)(void *ctx, const struct itrace_error *e);
  /* Every packet as parsed, for dumps (optional). */
  void (*packet)(void *ctx, uint64_t offset, const uint8_t *bytes, size_t len, const struct itrace_packet *p);
};

struct itrace_stats {
  uint64_t bytes, packets, blocks, insns, errors, psbs, overflows, lost_bytes, skipped;
};

struct itrace_decoder;
/* Returns NULL on ENOMEM. */
struct itrace_decoder *itrace_decoder_create(const struct itrace_ops *ops, void *ctx);
void itrace_decoder_destroy(struct itrace_decoder *d);
/* Decodes the next len bytes of the stream. Returns 0 or the block
 * callback's non-zero value. */
int itrace_decode(struct itrace_decoder *d, const uint8_t *buf, size_t len);
/* The stream has a gap here (data lost between buffers, lost bytes
 * counted): reports it as an error and resyncs at the next PSB. */
void itrace_gap(struct itrace_decoder *d, uint64_t lost);
/* The end of the stream: a packet left incomplete is a (reported) error. */
void itrace_finish(struct itrace_decoder *d);
const struct itrace_stats *itrace_stats(const struct itrace_decoder *d);

#endif
