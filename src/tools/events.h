/* Event names in perf's syntax (cycles, instructions, rN, pmu/terms/ with
 * the terms of the PMU's sysfs format/ and events/ files, software clocks,
 * :u :k :p :pp modifiers), turned into a perf_event_attr for the modelled
 * perf_event_open. */
#ifndef TOOLS_EVENTS_H
#define TOOLS_EVENTS_H
#include <linux/perf_event.h>
#include <stddef.h>

/* Fills *a (zeroed first, size set) from spec. Returns 0, or -1 when spec is
 * not an event name. */
int event_parse(const char *spec, struct perf_event_attr *a);
/* As event_parse; on -1, msg (len bytes, always terminated) gets perf's
 * message: "event syntax error: 'SPEC'", a line pointing at the term with
 * the reason ("unknown term 'x' for pmu 'cpu'", "value too big for format,
 * maximum is 3") and the valid terms, or "invalid or unsupported event". */
int event_parse_msg(const char *spec, struct perf_event_attr *a, char *msg, size_t len);
/* Splits a comma-separated event list in place, as perf does: commas inside
 * a PMU's /terms/ belong to the event. Returns the next event of *cursor (and
 * moves it past), or NULL at the end. */
char *event_list_next(char **cursor);

#endif
