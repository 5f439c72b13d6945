/* Writes the tests' sample bundle (testlib.c: "softmax" and "add") to a
 * file, for the replay test and for trying fuser_rt_replay by hand.
 * usage: make_sample_bundle OUT.bundle */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_sample_bundle OUT.bundle\n");
    return 64;
  }
  size_t size;
  unsigned char *d = tl_sample_bytes(&size, NULL);
  FILE *fp = fopen(argv[1], "wb");
  if (!fp || fwrite(d, 1, size, fp) != size) {
    perror(argv[1]);
    return 1;
  }
  fclose(fp);
  free(d);
  return 0;
}
