/* record's AUX area side (perf's util/auxtrace.c record half and
 * builtin-record.c's record__auxtrace_mmap_read): map an event's AUX area
 * after its ring (aux_offset/aux_size in the user page); for every
 * PERF_RECORD_AUX of the event (one dump of one CPU's stream: aux_offset,
 * aux_size, and the CPU in its sample_id trailer) copy those AUX bytes into
 * a PERF_RECORD_AUXTRACE record of that CPU's stream (idx = cpu, offset =
 * the position in that CPU's stream) and give the space back through
 * aux_tail; in snapshot mode (the area mapped read-only, overwritten in a
 * circle) remember the dumps and copy those still in the area when a
 * snapshot is taken. */
#ifndef TOOLS_RECORD_AUX_H
#define TOOLS_RECORD_AUX_H
#include "perfdata/perfdata.h"
#include <stdbool.h>
#include <stdint.h>

struct machine;

#define AUX_MAX_CPUS 64
#define AUX_SNAP_REGIONS 4096              /* dumps remembered in snapshot mode */

struct aux_map {
  int fd;
  struct perf_event_mmap_page *up;
  uint8_t *base;
  uint64_t size;                        /* bytes, a power of two */
  bool snapshot;
  uint64_t sample_type;                 /* of the event: where the trailer's cpu is */
  /* per CPU: bytes of its stream written, and up to 7 bytes held back so
   * that every AUXTRACE payload is whole 8-byte words */
  uint64_t stream[AUX_MAX_CPUS];
  uint8_t carry[AUX_MAX_CPUS][8];
  unsigned ncarry[AUX_MAX_CPUS];
  struct { uint64_t off, size; uint32_t cpu; } snap[AUX_SNAP_REGIONS];
  unsigned nsnap, snap_first;            /* a ring of the latest dumps */
  uint64_t snap_done;                    /* AUX offset copied up to by the last snapshot */
  uint64_t bytes, records, aux_records, truncated, partial, collisions, drain_reads;
};

/* Maps aux_pages (a power of two) pages of fd's AUX area after its ring of
 * 1 + data_pages pages; read-only (snapshot mode) when snapshot. 0 or -errno. */
int aux_map_open(struct machine *m, int fd, struct perf_event_mmap_page *up, uint64_t data_pages, uint64_t aux_pages,
                 bool snapshot, uint64_t sample_type, struct aux_map *a);
/* A PERF_RECORD_AUX of the event (rec: size bytes, copied out of the ring). */
int aux_map_process_aux(struct aux_map *a, struct pd_writer *w, const struct perf_event_header *rec);
/* Snapshot mode: copies the remembered dumps still in the area. */
int aux_snapshot(struct aux_map *a, struct pd_writer *w);
/* The end: the bytes held back, padded with PAD packets. */
int aux_finish(struct aux_map *a, struct pd_writer *w);

#endif
