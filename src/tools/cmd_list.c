/* profileme list: the events record and stat accept, like perf list, with the
 * `cpu` PMU's sysfs-style format attributes
 * (/sys/bus/event_source/devices/cpu/format on a real machine). */
#include "tools/commands.h"
#include <stdio.h>
#include <string.h>

int cmd_list(int argc, char **argv)
{
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: profileme list\nLists the events profileme record and stat accept.\n");
    return 0;
  }
  printf("\nList of pre-defined events (to be used in -e):\n\n"
         "  cycles OR cpu-cycles                               [Hardware event]\n"
         "  instructions                                       [Hardware event]\n"
         "  cache-misses                                       [Hardware event: B-cache misses]\n"
         "  cpu-clock                                          [Software event]\n"
         "  task-clock                                         [Software event]\n"
         "  page-faults OR faults                              [Software event]\n"
         "  context-switches OR cs                             [Software event]\n"
         "  rNNN                                               [Raw hardware event descriptor]\n"
         "  cpu/t1=v1[,t2=v2,t3 ...]/modifier                  [Raw hardware event descriptor]\n\n"
         "cpu/ (PERF_TYPE_RAW) events:\n"
         "  cpu/cycles/            = cpu/event=1/\n"
         "  cpu/instructions/      = cpu/event=2/\n"
         "  cpu/event=3/           B-cache misses (PCTR1, with instructions)\n"
         "  cpu/event=4/           Mbox replay traps (PCTR1, with cycles)\n\n"
         "cpu/ format (sysfs devices/cpu/format):\n"
         "  event      config:0-7\n"
         "  profileme  config:8      ProfileMe sampling (also selected by :p, :pp)\n"
         "  random     config:9      randomized sampling interval\n"
         "  sl1        config:10-11  PCTR1 input in ProfileMe mode (sample weight)\n"
         "  config1    config1:0-2   keep only retired (1), mispredicted (2), trapping (4)\n\n"
         "Modifiers: u (user only), k (kernel only), p/pp (precise: ProfileMe, retired only).\n"
         "stat also accepts sim/NAME/ ground-truth events: profileme stat --list.\n\n");
  return 0;
}
