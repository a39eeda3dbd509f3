/* The Alpha program behind the analysis-tool fixture (tools_fixture.c): a hot
 * loop with a load, a store and a conditional branch, a cold function run by
 * a second thread in the fixture's story, and global data for data symbols. */
long buf[256];
long cold_sum;

__attribute__((noinline)) long hot_loop(long n)
{
  long s = 0;
  for (long i = 0; i < n; i++) {
    s += buf[i & 255];
    buf[(i + 1) & 255] = s;
  }
  return s;
}

__attribute__((noinline)) void cold(long n)
{
  cold_sum += n * 3;
}

int main(int argc, char **argv)
{
  (void)argv;
  cold(argc);
  return (int)(hot_loop(1000000L * argc) & 1);
}
