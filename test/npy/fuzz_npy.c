/* libFuzzer target for the .npy parser (tools/fuserc/npy.c).
 *
 * Each input is parsed as a .npy file with every `expected` dtype (0 and
 * the eight fuser dtypes). A successful parse must describe a consistent
 * array no larger than the input, and must survive npy_serialize + npy_parse
 * unchanged; a failed one must leave a message naming the input and a zeroed
 * array. Anything else aborts.
 *
 *   clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
 *     tools/fuserc/npy.c test/npy/fuzz_npy.c -o /tmp/fuzz_npy
 *   /tmp/fuzz_npy -dict=test/npy/npy.dict -max_total_time=60 CORPUS_DIR
 *
 * With CMake and Clang: -DFUSER_NPY_FUZZER=ON builds the target fuzz_npy
 * (see test/npy/CMakeLists.txt).
 */
#include "../../tools/fuserc/npy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int cond) {
  if (!cond) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[NPY_ERR_LEN];
  for (int e = 0; e <= NPY_F64; e++) {
    npy_array a;
    err[0] = '\0';
    if (npy_parse(data, size, (npy_dtype)e, "fuzz.npy", &a, err, sizeof err)) {
      require(strncmp(err, "fuzz.npy: ", 10) == 0);
      require(a.data == NULL && a.rank == 0 && a.num_elements == 0);
      continue;
    }
    require(e == 0 || (int)a.dtype == e);
    require(a.rank >= 0 && a.rank <= FUSER_MAX_RANK && a.data != NULL);
    require(a.element_size == npy_dtype_size(a.dtype));
    size_t n = 1;
    int zero = 0;
    for (int i = 0; i < a.rank; i++) {
      require(a.shape[i] >= 0);
      if (a.shape[i] == 0) zero = 1;
      else n *= (size_t)a.shape[i];
    }
    require(a.num_elements == (zero ? 0 : n));
    require(a.num_elements * a.element_size <= size);
    if (a.dtype == NPY_I1)
      for (size_t i = 0; i < a.num_elements; i++)
        require(((const unsigned char *)a.data)[i] <= 1);
    void *buf;
    size_t bsize;
    require(npy_serialize(&a, &buf, &bsize, err, sizeof err) == 0);
    npy_array b;
    require(npy_parse(buf, bsize, a.dtype, "re.npy", &b, err, sizeof err) == 0);
    require(b.dtype == a.dtype && b.rank == a.rank &&
            b.num_elements == a.num_elements);
    for (int i = 0; i < a.rank; i++) require(b.shape[i] == a.shape[i]);
    require(memcmp(a.data, b.data, a.num_elements * a.element_size) == 0);
    free(buf);
    npy_free(&b);
    npy_free(&a);
  }
  return 0;
}
