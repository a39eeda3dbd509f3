/* The analysis commands' aggregation table: a hash table keyed by
 * fixed-size byte strings, its entries kept in insertion order so that
 * output that does not sort stays in the order of first appearance. */
#ifndef ANALYSIS_HIST_H
#define ANALYSIS_HIST_H
#include <stddef.h>

/* An aggregation table: fixed-size keys (compared as bytes; zero the
 * padding) mapped to zero-initialised values of a fixed size, kept in
 * insertion order. */
struct hist;
struct hist *hist_create(size_t key_size, size_t val_size);
void hist_destroy(struct hist *h);
/* The value of key, inserted when absent. Valid until the next insert;
 * NULL on ENOMEM. */
void *hist_get(struct hist *h, const void *key);
/* The value of key, or NULL when absent (nothing is inserted). */
void *hist_find(const struct hist *h, const void *key);
size_t hist_count(const struct hist *h);
/* Entry i (0..count-1): its key and value. */
const void *hist_key(const struct hist *h, size_t i);
void *hist_val(const struct hist *h, size_t i);

#endif
