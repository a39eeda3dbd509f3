/* The profileme subcommands. Each takes the arguments after its name (argv[0]
 * is the subcommand name) and returns the process exit status. */
#ifndef PM_COMMANDS_H
#define PM_COMMANDS_H

/* profileme disasm PROG [SYMBOL]: objdump -d style listing of an Alpha ELF file. */
int cmd_disasm(int argc, char **argv);

/* profileme run [OPTIONS] PROG [ARGS...]: run an Alpha Linux program. */
int cmd_run(int argc, char **argv);

/* profileme stat [OPTIONS] PROG [ARGS...]: count events on the timed EV67. */
int cmd_stat(int argc, char **argv);

/* profileme record [OPTIONS] PROG [ARGS...]: sample into perf.data. */
int cmd_record(int argc, char **argv);

#endif
