/*===- fuzz_bundle.c - libFuzzer target: the runtime's bundle loader ------===*\
|*                                                                            *|
|* Each input is a kernel bundle (docs/bundle.md). It is loaded by two        *|
|* runtimes over null drivers (one taking PTX modules, one emulator modules). *|
|* When it loads, every fusion is queried and then run for several sets of    *|
|* dynamic dims: the plan program (dims, asserts, launch grids, parameters,   *|
|* intermediates) is interpreted, and the launches go to the null driver.     *|
|* The contract: no crash or sanitizer report, every failure an error value   *|
|* with a message (fuzz_driver.c aborts otherwise).                           *|
|*                                                                            *|
|* The runtime's sources are compiled into the target, so under make fuzz    *|
|* they are instrumented for coverage, ASan and UBSan. Mutations come from    *|
|* bundle_mutator.c (LLVMFuzzerCustomMutator): fields and plan operands, with *|
|* the checksum fixed up, not only bytes.                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fuser_runtime.h"
#include "fuzz_driver.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_target_report(void);

/* Inputs tried, and how many loaded (on either runtime): the share of
 * mutants that get past the checksum and the validator. */
static long tried, loaded;

void fuzz_target_report(void) {
  printf("fuzz_bundle: %ld inputs, %ld loaded as bundles\n", tried, loaded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuser_rt *rts[2];
  if (!rts[0]) {
    if (fuser_rt_create_with_driver(&fuzz_null_driver_ptx, NULL, &rts[0]) ||
        fuser_rt_create_with_driver(&fuzz_null_driver_emulator, NULL, &rts[1]))
      abort();
  }
  ++tried;
  int ok = 0;
  for (int k = 0; k < 2; ++k) {
    fuser_bundle *b = NULL;
    fuser_error *e = fuser_bundle_load(rts[k], data, size, &b);
    if (e) {
      if (b || fuser_error_code_of(e) == 0 || !*fuser_error_message(e)) abort();
      fuser_error_destroy(e);
      continue;
    }
    ok = 1;
    fuzz_exercise_bundle(b, data, size);
    fuser_bundle_destroy(b);
  }
  loaded += ok;
  return 0;
}
