/* The workload of selfstat and of the script's `profileme stat` run: a
 * loop of exactly 2 * argv[1] user instructions. Prints nothing. */
#include "gp.h"

int main(int argc, char **argv)
{
  gp_loop(argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000);
  return 0;
}
