/* profileme: the command-line front end. Dispatches to the subcommands. */
#include "tools/commands.h"
#include <stdio.h>
#include <string.h>

static const struct { const char *name; int (*fn)(int, char **); const char *what; } cmds[] = {
  { "run", cmd_run, "run an Alpha Linux program on the emulated EV67" },
  { "list", cmd_list, "list the events record and stat accept" },
  { "record", cmd_record, "sample a program into perf.data (ProfileMe by default)" },
  { "stat", cmd_stat, "count events (cycles, instructions, sim/ ground truth) like perf stat" },
  { "disasm", cmd_disasm, "disassemble an Alpha ELF file like objdump -d" },
  { "report", cmd_report, "summarize a perf.data file like perf report" },
  { "annotate", cmd_annotate, "per-instruction samples with disassembly and source" },
  { "flamegraph", cmd_flamegraph, "draw the call stacks as a flame graph (SVG) or folded stacks" },
  { "script", cmd_script, "list the samples of a perf.data file like perf script" },
  { "mem", cmd_mem, "samples by data source like perf mem report" },
  { "inject", cmd_inject, "decode an instruction trace into samples Linux perf reads" },
  { "diff", cmd_diff, "compare perf.data files like perf diff" },
  { "data", cmd_data, "convert a perf.data file (--to-callgrind: KCachegrind)" },
  { "dcpi", cmd_dcpi, "ProfileMe status per symbol or instruction, DCPI style" },
};

static void usage(FILE *f)
{
  fprintf(f, "usage: profileme COMMAND [ARGS...]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].what);
  fprintf(f, "\n'profileme COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
  if (argc < 2) { usage(stderr); return 2; }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) { printf("profileme 0.1\n"); return 0; }
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (!strcmp(argv[1], cmds[i].name)) return cmds[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "profileme: '%s' is not a command. See 'profileme --help'.\n", argv[1]);
  return 2;
}
