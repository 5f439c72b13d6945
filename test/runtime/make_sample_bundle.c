/* Writes a sample bundle of the tests to a file, for the replay tests and
 * for trying fuser_rt_replay by hand: testlib.c's "softmax" and "add", or
 * with --linear its "linear" (one GEMM: y = x @ w^T + b).
 * usage: make_sample_bundle [--linear] OUT.bundle */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  bool linear = argc == 3 && strcmp(argv[1], "--linear") == 0;
  /* An output path is never an option ("--help" is not a file to write). */
  if ((argc != 2 && !linear) || argv[argc - 1][0] == '-') {
    fprintf(stderr, "usage: make_sample_bundle [--linear] OUT.bundle\n");
    return 64;
  }
  size_t size;
  unsigned char *d;
  if (linear) {
    bw_bundle b;
    tl_linear_bundle(&b);
    d = bw_write(&b, &size, NULL);
  } else {
    d = tl_sample_bytes(&size, NULL);
  }
  const char *out = argv[argc - 1];
  FILE *fp = fopen(out, "wb");
  if (!fp || fwrite(d, 1, size, fp) != size) {
    perror(out);
    return 1;
  }
  fclose(fp);
  free(d);
  return 0;
}
