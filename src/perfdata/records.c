/* The side-band records' fields; see records.h. Offsets follow
 * <linux/perf_event.h>'s comments on each PERF_RECORD_* type. */
#include "perfdata/records.h"
#include <string.h>

#define REC_MMAP_NAME  40   /* pid, tid, addr, len, pgoff */
#define REC_MMAP2_NAME 72   /* ... maj, min, ino, ino_generation, prot, flags */
#define REC_COMM_NAME  16   /* pid, tid */

static uint32_t rd32(const struct perf_event_header *rec, size_t off)
{
  uint32_t v;
  memcpy(&v, (const char *)rec + off, 4);
  return v;
}

static uint64_t rd64(const struct perf_event_header *rec, size_t off)
{
  uint64_t v;
  memcpy(&v, (const char *)rec + off, 8);
  return v;
}

/* The NUL-terminated string at off, or NULL when it does not end inside rec. */
static const char *rec_string(const struct perf_event_header *rec, size_t off)
{
  if (rec->size <= off) return NULL;
  const char *s = (const char *)rec + off;
  return memchr(s, 0, rec->size - off) ? s : NULL;
}

bool pd_read_mmap(const struct perf_event_header *rec, struct pd_mmap_rec *out)
{
  bool v2 = rec->type == PERF_RECORD_MMAP2;
  if (!v2 && rec->type != PERF_RECORD_MMAP) return false;
  const char *name = rec_string(rec, v2 ? REC_MMAP2_NAME : REC_MMAP_NAME);
  if (!name) return false;
  *out = (struct pd_mmap_rec){
    .pid = rd32(rec, 8), .tid = rd32(rec, 12),
    .start = rd64(rec, 16), .len = rd64(rec, 24), .pgoff = rd64(rec, 32),
    .prot = v2 ? rd32(rec, 64) : 0, .flags = v2 ? rd32(rec, 68) : 0,
    .filename = name,
  };
  return true;
}

bool pd_read_comm(const struct perf_event_header *rec, struct pd_comm_rec *out)
{
  const char *comm = rec->type == PERF_RECORD_COMM ? rec_string(rec, REC_COMM_NAME) : NULL;
  if (!comm) return false;
  *out = (struct pd_comm_rec){ .pid = rd32(rec, 8), .tid = rd32(rec, 12), .comm = comm };
  return true;
}

bool pd_read_task(const struct perf_event_header *rec, struct pd_task_rec *out)
{
  if ((rec->type != PERF_RECORD_FORK && rec->type != PERF_RECORD_EXIT) || rec->size < 24) return false;
  *out = (struct pd_task_rec){
    .pid = rd32(rec, 8), .ppid = rd32(rec, 12), .tid = rd32(rec, 16), .ptid = rd32(rec, 20),
    .time = rec->size >= 32 ? rd64(rec, 24) : 0,
  };
  return true;
}

bool pd_read_lost(const struct perf_event_header *rec, uint64_t *id, uint64_t *lost)
{
  if (rec->type != PERF_RECORD_LOST || rec->size < 24) return false;
  *id = rd64(rec, 8);
  *lost = rd64(rec, 16);
  return true;
}

bool pd_read_lost_samples(const struct perf_event_header *rec, uint64_t *lost)
{
  if (rec->type != PERF_RECORD_LOST_SAMPLES || rec->size < 16) return false;
  *lost = rd64(rec, 8);
  return true;
}

size_t pd_build_mmap2(void *buf, size_t cap, uint16_t misc, const struct pd_mmap_rec *m)
{
  size_t name = strlen(m->filename) + 1, size = REC_MMAP2_NAME + ((name + 7) & ~(size_t)7);
  if (size > cap || size > UINT16_MAX) return 0;
  char *b = buf;
  memset(b, 0, size);
  struct perf_event_header h = { .type = PERF_RECORD_MMAP2, .misc = misc, .size = (uint16_t)size };
  uint32_t ids[2] = { m->pid, m->tid }, pf[2] = { m->prot, m->flags };
  uint64_t v[3] = { m->start, m->len, m->pgoff };
  memcpy(b, &h, sizeof h);
  memcpy(b + 8, ids, 8);
  memcpy(b + 16, v, 24);
  memcpy(b + 64, pf, 8);
  memcpy(b + REC_MMAP2_NAME, m->filename, name);
  return size;
}

size_t pd_build_lost_samples(void *buf, size_t cap, uint64_t lost)
{
  if (cap < 16) return 0;
  struct perf_event_header h = { .type = PERF_RECORD_LOST_SAMPLES, .size = 16 };
  memcpy(buf, &h, sizeof h);
  memcpy((char *)buf + 8, &lost, 8);
  return 16;
}

size_t pd_build_sample_id(void *buf, size_t cap, uint64_t sample_type, const struct pd_sample_id *s)
{
  uint64_t w[6];
  size_t n = 0;
  if (sample_type & PERF_SAMPLE_TID) w[n++] = s->pid | (uint64_t)s->tid << 32;
  if (sample_type & PERF_SAMPLE_TIME) w[n++] = s->time;
  if (sample_type & PERF_SAMPLE_ID) w[n++] = s->id;
  if (sample_type & PERF_SAMPLE_STREAM_ID) w[n++] = s->stream_id;
  if (sample_type & PERF_SAMPLE_CPU) w[n++] = s->cpu;   /* u32 cpu, u32 res */
  if (sample_type & PERF_SAMPLE_IDENTIFIER) w[n++] = s->id;
  if (n * 8 > cap) return 0;
  memcpy(buf, w, n * 8);
  return n * 8;
}
