/* libFuzzer harness for the perf.data reader: any bytes are opened (from an
 * 8-aligned copy, as a mapped file would be), every record is iterated, its
 * event looked up and every SAMPLE parsed, touching each pointer the reader
 * hands out (AUXTRACE payloads and AUX records included). The reader promises to take any bytes: a crash, a sanitizer
 * report or an out-of-table error code here is a reader bug. */
#include "perfdata/perfdata.h"
#include "perfdata/records.h"
#include "util/err.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts unless err is 0, 1 (a record) or a PM_E* code and a failure came
 * with a message. */
static void check_err(int err, const char *msg)
{
  if (err != 0 && err != 1 && !pm_is_err(err)) abort();
  if (err < 0 && msg[0] == '\0') abort();
}

/* Reads every byte of [p, p + n) so ASan sees any overrun. */
static unsigned touch(const void *p, size_t n)
{
  unsigned sum = 0;
  for (size_t i = 0; i < n; i++) sum += ((const volatile uint8_t *)p)[i];
  return sum;
}

/* The AUX area records: parsed, their payloads and priv words touched. */
static void aux_records(const struct perf_event_header *rec)
{
  char msg[256] = "";
  int err = 0;
  if (rec->type == PD_RECORD_AUXTRACE) {
    struct pd_auxtrace a;
    const uint8_t *d;
    if (!(err = pd_parse_auxtrace(rec, &a, &d, msg, sizeof msg))) touch(d, a.size);
  } else if (rec->type == PD_RECORD_AUXTRACE_INFO) {
    uint32_t type;
    const uint64_t *priv;
    size_t n;
    if (!(err = pd_parse_auxtrace_info(rec, &type, &priv, &n, msg, sizeof msg))) touch(priv, n * 8);
  } else if (rec->type == PERF_RECORD_AUX) {
    uint64_t o, sz, f;
    err = pd_parse_aux(rec, &o, &sz, &f, msg, sizeof msg);
  } else if (rec->type == PERF_RECORD_ITRACE_START) {
    uint32_t pid, tid;
    err = pd_parse_itrace_start(rec, &pid, &tid, msg, sizeof msg);
  }
  check_err(err, msg);
}

/* The side-band records: read, their strings touched up to the NUL. */
static void side_band(const struct perf_event_header *rec)
{
  struct pd_mmap_rec m;
  struct pd_comm_rec c;
  struct pd_task_rec t;
  uint64_t id, lost;
  if (pd_read_mmap(rec, &m)) touch(m.filename, strlen(m.filename) + 1);
  if (pd_read_comm(rec, &c)) touch(c.comm, strlen(c.comm) + 1);
  (void)pd_read_task(rec, &t);
  (void)pd_read_lost(rec, &id, &lost);
  (void)pd_read_lost_samples(rec, &lost);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint64_t *buf = malloc(size / 8 * 8 + 8);
  if (!buf) return 0;
  memcpy(buf, data, size);
  char msg[256] = "";
  int err = 0;
  struct pd_reader *r = pd_reader_open_mem(buf, size, &err, msg, sizeof msg);
  check_err(err, msg);
  if (!r) { free(buf); return 0; }
  for (size_t i = 0; i < pd_reader_nevents(r); i++) {
    const struct pd_event *e = pd_reader_event(r, i);
    touch(e->name, strlen(e->name));
    touch(e->ids, e->nids * sizeof e->ids[0]);
  }
  for (size_t i = 0; i < pd_reader_nbuild_ids(r); i++)
    touch(pd_reader_build_id(r, i)->filename, strlen(pd_reader_build_id(r, i)->filename));
  const char *cmd = pd_reader_env(r, "cmdline");
  if (cmd) touch(cmd, strlen(cmd));
  const struct perf_event_header *rec;
  int rc;
  while ((msg[0] = '\0', rc = pd_reader_next(r, &rec, msg, sizeof msg)) == 1) {
    touch(rec, rec->size);
    pd_record_event(r, rec);
    aux_records(rec);
    side_band(rec);
    if (rec->type != PERF_RECORD_SAMPLE) continue;
    struct pd_sample s;
    msg[0] = '\0';
    err = pd_parse_sample(r, rec, &s, msg, sizeof msg);
    check_err(err, msg);
    if (err) continue;
    touch(s.raw, s.raw_size);
    touch(s.callchain, s.callchain_nr * sizeof s.callchain[0]);
    /* what the unwinders read: registers by mask, the stack dump */
    if (s.user_abi) touch(s.user_regs, (size_t)__builtin_popcountll(s.user_mask) * 8);
    if (s.intr_abi) touch(s.intr_regs, (size_t)__builtin_popcountll(s.intr_mask) * 8);
    touch(s.stack, s.stack_size);
    if (s.stack_dyn_size > s.stack_size) abort();
  }
  check_err(rc, msg);
  pd_reader_close(r);
  free(buf);
  return 0;
}
