/*===- fuzz_driver.h - pieces shared by the fuzz targets ------------*- C -*-===*/
#ifndef FUSER_FUZZ_DRIVER_H
#define FUSER_FUZZ_DRIVER_H

#include "fuser_runtime.h"

#include <stddef.h>
#include <stdint.h>

/* Drivers that accept every module and launch, and hand out device
 * addresses without memory behind them (nothing dereferences them): one
 * takes PTX modules, the other emulator modules. */
extern const fuser_driver fuzz_null_driver_ptx;
extern const fuser_driver fuzz_null_driver_emulator;

/* Queries every fusion of `bundle`, then infers dims and runs each fusion
 * (on the null driver) for a few sets of dynamic dims, some derived from
 * `seed`. Every call must return NULL or an error with a message; a
 * contract violation aborts. */
void fuzz_exercise_bundle(const fuser_bundle *bundle, const uint8_t *seed,
                          size_t seed_size);

#endif
