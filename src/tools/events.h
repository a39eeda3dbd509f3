/* Event names in perf's syntax (cycles, instructions, cache-misses, rN,
 * cpu/event=N,profileme=1,.../, software clocks, :u :k :p :pp modifiers),
 * turned into a perf_event_attr for the modelled perf_event_open. */
#ifndef TOOLS_EVENTS_H
#define TOOLS_EVENTS_H
#include <linux/perf_event.h>

/* Fills *a (zeroed first, size set) from spec. Returns 0, or -1 when spec is
 * not an event name; the caller says so, with event_help. */
int event_parse(const char *spec, struct perf_event_attr *a);
/* Splits a comma-separated event list in place, as perf does: commas inside
 * a PMU's /terms/ belong to the event. Returns the next event of *cursor (and
 * moves it past), or NULL at the end. */
char *event_list_next(char **cursor);
/* The list of accepted forms, for error messages. */
extern const char event_help[];

#endif
