/* record's AUX area side; see record_aux.h. */
#include "tools/record_aux.h"
#include "machine/machine.h"
#include "util/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 8192

int aux_map_open(struct machine *m, int fd, struct perf_event_mmap_page *up, uint64_t data_pages, uint64_t aux_pages,
                 bool snapshot, uint64_t sample_type, struct aux_map *a)
{
  memset(a, 0, sizeof *a);
  a->fd = fd;
  a->up = up;
  a->snapshot = snapshot;
  a->sample_type = sample_type;
  a->size = aux_pages * PAGE;
  up->aux_offset = (1 + data_pages) * PAGE;     /* right after the ring, as perf places it */
  up->aux_size = a->size;
  void *p = NULL;
  int e = machine_perf_mmap_aux(m, fd, up->aux_offset, (size_t)a->size, !snapshot, &p);
  if (e) return e;
  a->base = p;
  return 0;
}

/* The CPU in a record's sample_id trailer (TID TIME ID STREAM_ID CPU
 * IDENTIFIER, evsel__parse_id_sample's order, read from the end). */
static uint32_t trailer_cpu(const struct aux_map *a, const struct perf_event_header *rec)
{
  if (!(a->sample_type & PERF_SAMPLE_CPU)) return 0;
  size_t back = 8 * (1 + !!(a->sample_type & PERF_SAMPLE_IDENTIFIER));
  if (rec->size < 32 + back) return 0;
  uint32_t cpu;
  memcpy(&cpu, (const uint8_t *)rec + rec->size - back, 4);
  return cpu < AUX_MAX_CPUS ? cpu : 0;
}

/* Appends the AUX bytes [off, off + len) to cpu's stream: whole words go
 * out as one AUXTRACE record, the rest waits for that CPU's next dump. */
static int emit(struct aux_map *a, struct pd_writer *w, uint32_t cpu, uint64_t off, uint64_t len, bool final)
{
  uint64_t total = a->ncarry[cpu] + len, out = final ? (total + 7) & ~7ull : total & ~7ull;
  if (!out) {
    for (uint64_t i = 0; i < len; i++) a->carry[cpu][a->ncarry[cpu]++] = a->base[(off + i) & (a->size - 1)];
    return 0;
  }
  uint8_t *buf = calloc(1, out + 8);
  if (!buf) return PM_ENOMEM;
  memcpy(buf, a->carry[cpu], a->ncarry[cpu]);
  for (uint64_t i = 0; i < len; i++) buf[a->ncarry[cpu] + i] = a->base[(off + i) & (a->size - 1)];
  struct pd_auxtrace rec = { .size = out, .offset = a->stream[cpu], .reference = a->records, .idx = cpu,
                             .tid = (uint32_t)-1, .cpu = cpu };
  int e = pd_writer_auxtrace(w, &rec, buf);
  a->ncarry[cpu] = (unsigned)(total > out ? total - out : 0);
  memcpy(a->carry[cpu], buf + out, a->ncarry[cpu]);
  free(buf);
  if (e) return e;
  a->stream[cpu] += out;
  a->bytes += out;
  a->records++;
  return 0;
}

int aux_map_process_aux(struct aux_map *a, struct pd_writer *w, const struct perf_event_header *rec)
{
  uint64_t off, size, flags;
  char eb[64];
  if (pd_parse_aux(rec, &off, &size, &flags, eb, sizeof eb)) return 0;
  uint32_t cpu = trailer_cpu(a, rec);
  a->aux_records++;
  if (flags & PERF_AUX_FLAG_TRUNCATED) a->truncated++;
  if (flags & PERF_AUX_FLAG_PARTIAL) a->partial++;
  if (flags & PERF_AUX_FLAG_COLLISION) a->collisions++;
  if (!size) return 0;
  if (size > a->size) size = a->size;
  if (a->snapshot) {
    unsigned i = (a->snap_first + a->nsnap) % AUX_SNAP_REGIONS;
    if (a->nsnap == AUX_SNAP_REGIONS) a->snap_first = (a->snap_first + 1) % AUX_SNAP_REGIONS;
    else a->nsnap++;
    a->snap[i].off = off;
    a->snap[i].size = size;
    a->snap[i].cpu = cpu;
    return 0;
  }
  int e = emit(a, w, cpu, off, size, false);
  if (!e) __atomic_store_n(&a->up->aux_tail, off + size, __ATOMIC_RELEASE);
  return e;
}

int aux_snapshot(struct aux_map *a, struct pd_writer *w)
{
  uint64_t head = __atomic_load_n(&a->up->aux_head, __ATOMIC_ACQUIRE);
  uint64_t oldest = head > a->size ? head - a->size : 0;
  int e = 0;
  for (unsigned k = 0; k < a->nsnap && !e; k++) {
    unsigned i = (a->snap_first + k) % AUX_SNAP_REGIONS;
    uint64_t off = a->snap[i].off, end = off + a->snap[i].size;
    if (end <= a->snap_done || off < oldest) continue;   /* copied already, or overwritten since */
    if (off < a->snap_done) off = a->snap_done;
    uint32_t cpu = a->snap[i].cpu;
    /* a snapshot does not continue the last one: drop what was held back
     * and start a new stream position (the decoder resyncs at a PSB) */
    a->ncarry[cpu] = 0;
    a->stream[cpu] += 1u << 20;
    e = emit(a, w, cpu, off, end - off, true);
  }
  a->nsnap = 0;
  a->snap_first = 0;
  a->snap_done = head;
  return e;
}

int aux_finish(struct aux_map *a, struct pd_writer *w)
{
  int e = 0;
  if (a->snapshot) return aux_snapshot(a, w);
  for (uint32_t cpu = 0; cpu < AUX_MAX_CPUS && !e; cpu++)
    if (a->ncarry[cpu]) e = emit(a, w, cpu, 0, 0, true);
  return e;
}
