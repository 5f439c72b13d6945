/* The runtime's 16-bit float conversions, for the fake cuBLASLt and the
 * GEMM tests: one definition, in the runtime's sources. */
#include "../../runtime/src/fp16.h"
