/* cat FILE: copies FILE to stdout. The viewers' tests run it in the machine
 * to read the guest's /proc/kallsyms, which hotspot's parser takes as its
 * kernel symbol table (Debian's Alpha cross packages have no cat). */
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
  char buf[8192];
  ssize_t n;
  int fd = argc > 1 ? open(argv[1], O_RDONLY) : 0;
  if (fd < 0) return 1;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    if (write(1, buf, (size_t)n) != n) return 1;
  return n < 0;
}
