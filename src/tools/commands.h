/* The profileme subcommands. Each takes the arguments after its name (argv[0]
 * is the subcommand name) and returns the process exit status. */
#ifndef PM_COMMANDS_H
#define PM_COMMANDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* profileme disasm PROG [SYMBOL]: objdump -d style listing of an Alpha ELF file. */
int cmd_disasm(int argc, char **argv);
/* One instruction of an Alpha ELF file as objdump -d prints it (the text after
 * the bytes, targets labelled as objdump labels them), for the commands that
 * show instructions one by one as perf shows objdump's (dcpi --by insn). */
struct disasm_file;
/* Opens path; NULL when it is not a readable Alpha ELF file (or ENOMEM). */
struct disasm_file *disasm_file_open(const char *path);
/* The text of the instruction at link-time address vma into buf; false when
 * no code section holds it. */
bool disasm_file_insn(struct disasm_file *f, uint64_t vma, char *buf, size_t len);
void disasm_file_close(struct disasm_file *f);

/* profileme run [OPTIONS] PROG [ARGS...]: run an Alpha Linux program. */
int cmd_run(int argc, char **argv);

/* profileme stat [OPTIONS] PROG [ARGS...]: count events on the timed EV67. */
int cmd_stat(int argc, char **argv);

/* profileme report [-i FILE] [--stdio] [--sort KEYS]: perf report --stdio. */
int cmd_report(int argc, char **argv);

/* profileme annotate [-i FILE] [--stdio] SYMBOL: per-instruction samples with
 * disassembly and source, like perf annotate. */
int cmd_annotate(int argc, char **argv);

/* profileme script [-i FILE] [-F FIELDS] [-D]: one line per sample, like perf script. */
int cmd_script(int argc, char **argv);

/* profileme flamegraph [-i FILE] [-o OUT] [--folded]: call stacks as a flame graph. */
int cmd_flamegraph(int argc, char **argv);

/* profileme mem [-t TYPE] report|record ...: samples by data source, like
 * perf mem report; recording with the memory events, like perf mem record. */
int cmd_mem(int argc, char **argv);
/* profileme mem record [-t TYPE] [-e TAGS] [-U] [-K] [RECORD-OPTIONS] PROG:
 * argv[0] is "record"; type is mem's -t before the subcommand (OP bits
 * from mem_parse_type, 0 for the default, loads and stores). */
int cmd_mem_record(int argc, char **argv, int type);
/* -t's value (load, store, load,store): 1 load, 2 store, 3 both; 0 if bad. */
int mem_parse_type(const char *s);

/* profileme dcpi -i FILE --by sym|insn [-x SEP]: ProfileMe status sums, DCPI style. */
int cmd_dcpi(int argc, char **argv);

/* profileme record [OPTIONS] PROG [ARGS...]: sample into perf.data. */
int cmd_record(int argc, char **argv);

/* profileme inject --itrace -i IN -o OUT: the instruction trace decoded into
 * ordinary samples that Linux perf reads, as perf inject --itrace. */
int cmd_inject(int argc, char **argv);

/* profileme dcpi --exec / --cpi: exact execution counts from the trace, and
 * cycles per instruction joining them with ProfileMe samples (cmd_cpi.c). */
int cmd_dcpi_cpi(int argc, char **argv, bool cpi);

/* profileme diff [-c delta|ratio|wdiff:W1,W2] [OLD] [NEW...]: perf diff. */
int cmd_diff(int argc, char **argv);
/* profileme diff --dcpi ...: ProfileMe statuses compared, dcpidiff style (cmd_diff_dcpi.c). */
int cmd_diff_dcpi(int argc, char **argv);

/* profileme data convert --to-callgrind FILE [-i IN]: perf data convert,
 * to Valgrind's callgrind format (KCachegrind, callgrind_annotate). */
int cmd_data(int argc, char **argv);

/* profileme list: the events and the cpu PMU format. */
int cmd_list(int argc, char **argv);

#endif
