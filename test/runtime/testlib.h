/* Shared helpers of the runtime tests: checks, the fake driver's log,
 * sample bundles. */
#ifndef FUSER_TEST_TESTLIB_H
#define FUSER_TEST_TESTLIB_H

#include "bundle_writer.h"
#include "fuser_runtime.h"

#include <stdbool.h>
#include <stddef.h>

extern int tl_failures;

#define CHECK(cond)                                                          \
  tl_check((cond), #cond, __FILE__, __LINE__)
/* err must be NULL; destroys it. */
#define EXPECT_OK(err) tl_expect_ok((err), #err, __FILE__, __LINE__)
/* err must be an error of `code` whose message contains every one of the
 * NULL-terminated substrings; destroys it. */
#define EXPECT_ERR(err, code, ...)                                           \
  tl_expect_err((err), (code), __FILE__, __LINE__, __VA_ARGS__, (const char *)0)

bool tl_check(bool ok, const char *what, const char *file, int line);
bool tl_expect_ok(fuser_error *e, const char *what, const char *file,
                  int line);
bool tl_expect_err(fuser_error *e, fuser_error_code code, const char *file,
                   int line, ...);
/* Prints the summary and returns the exit status. */
int tl_finish(const char *name);

/* ---- the fake driver's log ------------------------------------------------ */

/* Sets FUSER_FAKE_LOG to a fresh file in the temp dir for this process;
 * returns its path. */
const char *tl_log_setup(const char *test_name);
/* Uses `path` as the log without touching the environment. */
void tl_log_setup_path(const char *path);
/* Empties the log. */
void tl_log_clear(void);
/* Whether a log line is one the comparisons look at: module loads/unloads,
 * function lookups, attributes, launches, device allocations and frees,
 * the 2D writes of a GEMM with k = 0, device-to-device copies, and every
 * call of the fake cuBLASLt. */
bool tl_log_interesting(const char *line);
/* Reads the interesting lines of the log; returns their count (lines in
 * *out, free with tl_lines_free). */
size_t tl_log_read(char ***out);
void tl_lines_free(char **lines, size_t n);
/* Compares the interesting lines with `expected` (NULL-terminated) and
 * clears the log. Prints a diff on mismatch. */
#define EXPECT_LOG(...)                                                      \
  tl_expect_log(__FILE__, __LINE__, (const char *const[]){__VA_ARGS__, NULL})
#define EXPECT_NO_LOG()                                                      \
  tl_expect_log(__FILE__, __LINE__, (const char *const[]){NULL})
bool tl_expect_log(const char *file, int line, const char *const *expected);
/* Number of interesting lines starting with `prefix`. */
size_t tl_log_count(const char *prefix);

/* The fake's test hooks, through dlopen of the same library. */
long tl_fake_hook(const char *fake_path, const char *hook);

/* ---- runtimes ------------------------------------------------------------ */

/* A runtime on the fake CUDA driver at `fake_path` (via the option). */
fuser_rt *tl_fake_rt(const char *fake_path);
/* A driver whose operations do nothing (for validation and benchmarks). */
extern const fuser_driver tl_null_driver;

/* ---- sample bundles ---------------------------------------------------- */

/* PTX text with the kernels of the samples. */
extern const char tl_sample_ptx[];

/* "softmax": x f32[?,?] -> y f32[?,?]; four dynamic dims (x rows, x cols,
 * y rows, y cols); asserts y's dims equal x's; one intermediate of rows*4
 * bytes; launches softmax_max, then softmax_vec4 when x and y are 16-byte
 * aligned, else softmax_norm; their dynamic shared memory is cols*4 bytes;
 * last, RESULT_DIMs say y's dims are x's.
 * "add": x f32[1024], y f32[1024] -> z f32[1024]; static; one launch
 * add_kernel grid 4 block 256 with (x, y, z, i32 1024).
 * Module 0 is the PTX; with `with_emulation`, module 1 is MLIR text for
 * the emulator and both fusions refer to it. */
void tl_sample_bundle(bw_bundle *b, bool with_emulation);

/* Writes tl_sample_bundle to bytes (free with free()). */
unsigned char *tl_sample_bytes(size_t *size, bw_layout *layout);

/* "linear": x f16[?, 4], w f16[5, 4], b f16[5] -> y f16[?, 5], y = x @ w^T
 * + b as one GEMM (TRANS_B, bias epilogue; m is x's rows, dynamic dim 0,
 * and y's, dynamic dim 1); module 0 is tl_sample_ptx. Minor version 1. */
void tl_linear_bundle(bw_bundle *b);

/* "sharded": x f32[8], p i32[4] -> y f32[8], z f32[4], w i32[2] on a grid
 * of 1 x 1 devices (so it runs without a communicator: every collective is
 * a copy): all_reduce (sum, axis 0) x -> y, reduce_scatter (max, axis 1) x
 * -> z, slice (both axes) p -> w, all_reduce (sum, both) x -> an
 * intermediate of 16 bytes, all_gather (axis 1) of it -> z. Module 0 is
 * tl_sample_ptx. Minor version 3. */
void tl_sharded_bundle(bw_bundle *b);

#endif
