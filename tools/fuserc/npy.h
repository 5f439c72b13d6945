/* npy.h - reading and writing NumPy .npy files (C11; needs only the runtime's
 * plain-C header fuser_runtime.h, for FUSER_MAX_RANK and the dtypes).
 *
 * Used by `fuserc run` to read fusion inputs and write results. The format
 * and the conventions (bf16 stored as uint16 bit patterns, fp8 as uint8, what is rejected
 * and why) are described in docs/npy.md.
 *
 * Element data is always held in C (row-major) order and little-endian byte
 * order, exactly as it appears in a .npy file written on a little-endian
 * machine; the library copies bytes and never converts values.
 *
 * Every function that can fail returns 0 on success and nonzero on error;
 * on error it writes a NUL-terminated, human-readable message of at most
 * `errlen` bytes (including the NUL) to `err` (nothing is written when `err`
 * is NULL or `errlen` is 0), and leaves its outputs zeroed. Messages name the
 * file and say what was expected, e.g.
 *   "x.npy: truncated: header says 1000 float32 elements (4000 bytes) but
 *    3996 bytes follow"
 * The functions keep no global state and are safe to call from several
 * threads at once on different objects.
 */
#ifndef FUSER_NPY_H
#define FUSER_NPY_H

#include <stddef.h>
#include <stdint.h>

/* FUSER_MAX_RANK and the dtype numbers: one definition for all of fuser
 * (a plain-C header; compile with -I runtime/include, no library needed). */
#include "fuser_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest rank the library handles is FUSER_MAX_RANK (32, NumPy 1.x's
 * NPY_MAXDIMS too): the rank of every tensor fuser makes. */

/* A good size for the `err` buffers: long enough for every message. */
#define NPY_ERR_LEN 512

/* fuser's element types, numbered as the dtypes of the kernel bundle format
 * (docs/bundle.md). The .npy descr of each:
 *   NPY_I1   '|b1'  bool, one byte holding 0 or 1
 *   NPY_I8   '|i1'  int8
 *   NPY_I32  '<i4'  int32
 *   NPY_I64  '<i8'  int64
 *   NPY_F16  '<f2'  IEEE half
 *   NPY_BF16 '<u2'  raw bfloat16 bit patterns (NumPy has no bfloat16)
 *   NPY_F32  '<f4'  float32
 *   NPY_F64  '<f8'  float64
 *   NPY_F8E4M3FN, NPY_F8E5M2, NPY_F8E8M0FNU '|u1'  raw fp8 bit patterns
 *                                  (NumPy has no fp8)
 */
typedef enum {
  NPY_I1 = FUSER_DTYPE_I1,
  NPY_I8 = FUSER_DTYPE_I8,
  NPY_I32 = FUSER_DTYPE_I32,
  NPY_I64 = FUSER_DTYPE_I64,
  NPY_F16 = FUSER_DTYPE_F16,
  NPY_BF16 = FUSER_DTYPE_BF16,
  NPY_F32 = FUSER_DTYPE_F32,
  NPY_F64 = FUSER_DTYPE_F64,
  NPY_F8E4M3FN = FUSER_DTYPE_F8E4M3FN,
  NPY_F8E5M2 = FUSER_DTYPE_F8E5M2,
  NPY_F8E8M0FNU = FUSER_DTYPE_F8E8M0FNU
} npy_dtype;

/* An n-dimensional array. npy_parse/npy_load fill every field; for
 * npy_serialize/npy_save the caller fills them all (num_elements and
 * element_size are checked against shape and dtype). */
typedef struct {
  npy_dtype dtype;
  int rank;                     /* 0..FUSER_MAX_RANK; 0 is a scalar (1 element) */
  int64_t shape[FUSER_MAX_RANK];  /* shape[0..rank-1], each >= 0; the rest 0 */
  size_t num_elements;          /* product of the dims (1 for rank 0) */
  size_t element_size;          /* bytes per element: npy_dtype_size(dtype) */
  void *data;                   /* num_elements * element_size bytes, C order,
                                   little-endian; malloc'd and owned by the
                                   array. After a successful parse/load it is
                                   never NULL: a zero-element array gets a
                                   1-byte allocation. For serialize/save it may
                                   be NULL when num_elements is 0. */
} npy_array;

/* Parses the `size` bytes of a .npy file at `bytes` into `*out` (which need
 * not be initialized; it is zeroed on error, so npy_free is always safe).
 *
 * `expected` is the element type the caller needs, or 0 for "any":
 *  - a file whose dtype is not `expected` is an error
 *    ("x.npy: dtype is float32 ('<f4') but bf16 is expected");
 *  - '<u2' (uint16) is read as NPY_BF16 only when `expected` is NPY_BF16,
 *    and '|u1' (uint8) as an fp8 type only when `expected` is that type;
 *    with `expected` 0 either is an error, since neither is a fuser type and
 *    the bits are only known to be bf16 or fp8 when the caller says so.
 * `name` (typically the file name; NULL means "<npy>") starts every message.
 *
 * Accepts format versions 1.0, 2.0 and 3.0. Rejects, with a message: a bad
 * magic or version, a malformed header, keys other than 'descr',
 * 'fortran_order' and 'shape' (or a missing or repeated one), Fortran order,
 * big-endian, structured, object and all non-fuser dtypes, negative dims,
 * rank above FUSER_MAX_RANK, an element count that overflows, data shorter or
 * longer than the shape says, and bool elements other than 0 and 1.
 * Never reads outside [bytes, bytes+size) and never allocates more than the
 * data bytes present in the input plus a small constant. */
int npy_parse(const void *bytes, size_t size, npy_dtype expected,
              const char *name, npy_array *out, char *err, size_t errlen);

/* Reads the whole file at `path` and parses it as npy_parse does, with
 * `path` as the name in messages (plus "cannot open/read: <strerror>" for
 * I/O errors). The data is moved into place inside the buffer the file was
 * read into, so peak memory is about the file size. A file that does not
 * start with the .npy magic is rejected after reading at most 4 KiB. */
int npy_load(const char *path, npy_dtype expected, npy_array *out,
             char *err, size_t errlen);

/* Serializes `a` to .npy bytes: a version 1.0 header (2.0 if the header
 * does not fit in 65535 bytes), laid out exactly as NumPy's np.save writes
 * it (so data starts at a multiple of 64 bytes), then the data in C order.
 * On success `*out` is a malloc'd buffer of `*out_size` bytes (free it with
 * free()); on error `*out` is NULL and `*out_size` 0. Errors: an invalid
 * dtype, rank or dim, or num_elements/element_size inconsistent with the
 * shape and dtype, or NULL data for a nonempty array. Bool values are
 * written as they are (not checked). */
int npy_serialize(const npy_array *a, void **out, size_t *out_size,
                  char *err, size_t errlen);

/* Writes `a` to the file at `path` (created or truncated) in the format of
 * npy_serialize, without building the whole file in memory. On a write
 * error the message names `path` and the system error; the file may then be
 * left incomplete (it is not removed: `path` may be a device or a file the
 * caller did not create). */
int npy_save(const char *path, const npy_array *a, char *err, size_t errlen);

/* Frees a->data and zeroes *a. Safe on a zeroed struct and on NULL. */
void npy_free(npy_array *a);

/* fuser's name of a dtype: "i1", "i8", "i32", "i64", "f16", "bf16", "f32",
 * "f64"; "invalid" for any other value. */
const char *npy_dtype_name(npy_dtype dtype);

/* The bytes per element of a dtype (1, 1, 4, 8, 2, 2, 4, 8); 0 for an
 * invalid value. */
size_t npy_dtype_size(npy_dtype dtype);

/* The .npy descr written for a dtype: "|b1", "|i1", "<i4", "<i8", "<f2",
 * "<u2", "<f4", "<f8"; NULL for an invalid value. */
const char *npy_dtype_descr(npy_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_NPY_H */
