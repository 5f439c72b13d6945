/*===- run.c - fuserc run (lands with the .npy reader) --------------------===*/
#include "fuserc.h"
#include <stdio.h>
int fusercRun(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "fuserc: error: run is not available in this build yet\n");
  return 1;
}
