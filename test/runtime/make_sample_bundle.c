/* Writes a sample bundle of the tests to a file, for the replay tests and
 * for trying fuser_rt_replay by hand: testlib.c's "softmax" and "add", or
 * with --linear its "linear" (one GEMM: y = x @ w^T + b), or with
 * --sharded its "sharded" (a GRID of one device and five COLLECTIVEs).
 * usage: make_sample_bundle [--linear | --sharded] OUT.bundle */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  bool linear = argc == 3 && strcmp(argv[1], "--linear") == 0;
  bool sharded = argc == 3 && strcmp(argv[1], "--sharded") == 0;
  /* An output path is never an option ("--help" is not a file to write). */
  if ((argc != 2 && !linear && !sharded) || argv[argc - 1][0] == '-') {
    fprintf(stderr,
            "usage: make_sample_bundle [--linear | --sharded] OUT.bundle\n");
    return 64;
  }
  size_t size;
  unsigned char *d;
  if (linear || sharded) {
    bw_bundle b;
    if (linear)
      tl_linear_bundle(&b);
    else
      tl_sharded_bundle(&b);
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
