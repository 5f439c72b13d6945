/*===- capi_test.h - what every C API test program shares -------*- C -*-===*\
|*                                                                            *|
|* A failure counter and EXPECT, which prints the failed condition with its   *|
|* place and counts it; main returns failures != 0. One program per file, so  *|
|* `failures` is each program's own.                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_TEST_CAPI_CAPI_TEST_H
#define FUSER_TEST_CAPI_CAPI_TEST_H

#include <stdio.h>

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#endif
