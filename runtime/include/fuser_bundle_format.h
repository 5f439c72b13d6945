/*
 * fuser_bundle_format.h - the kernel bundle format (docs/bundle.md) as
 * constants: the magic, the version, record sizes, the offset of every
 * field, opcodes, parameter kinds, dtypes, module kinds, and the checksum.
 *
 * This is the ONE definition of the format. Every writer and reader uses
 * it: the compiler's writer (lib/Target/Bundle/BundleWriter.cpp, C++), the
 * runtime's reader (runtime/src/bundle.c, and fuser_runtime.h's enums), the
 * tests' writer (test/runtime/bundle_writer.c), the fuzz mutator
 * (fuzz/bundle_mutator.c); bench/quality/fuserbundle.py reads the
 * `#define FUSER_BUNDLE_*` lines of this file, so keep each one a single
 * integer (or string) literal. docs/bundle.md describes the same layout
 * in tables.
 *
 * Plain C99 and C++, no dependencies beyond <stddef.h> and <stdint.h>.
 * All integers in a bundle are little-endian; offsets are bytes from the
 * start of the file (for header fields) or of the record.
 */
#ifndef FUSER_BUNDLE_FORMAT_H
#define FUSER_BUNDLE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define FUSER_BUNDLE_MAGIC "FUSERBND" /* the first 8 bytes, no NUL */
#define FUSER_BUNDLE_MAGIC_SIZE 8
/* The version this header describes. 2 added the checksum (header of 72
 * bytes); version 1 files are rejected with a request to recompile. */
#define FUSER_BUNDLE_FORMAT_VERSION 2
/* The minor version this header describes (header field H_MINOR, which
 * was a reserved 0 before it): 0 for every bundle without library calls,
 * 1 for one with a GEMM instruction (matmul through cuBLASLt), 2 for one
 * whose GEMM also writes its pre-activation (EPILOGUE_AUX), 3 for one
 * sharded over a device grid (GRID and COLLECTIVE instructions), 4 for one
 * whose GEMM also writes a bias gradient (EPILOGUE_BGRAD_A/B), 5 for one
 * that carries cubins (MODULE_CUBIN). A reader
 * takes every minor version up to its own and refuses a newer one by
 * name; a reader from before minor versions refuses a minor 1 bundle as
 * "the reserved header field at offset 68 is not 0". */
#define FUSER_BUNDLE_FORMAT_MINOR 5
/* Every record starts at a multiple of this. */
#define FUSER_BUNDLE_ALIGN 8
/* "none" for optional registers, predicates and module indices. */
#define FUSER_BUNDLE_NONE 0xFFFFFFFF

/* ---- header (at offset 0) --------------------------------------------- */
#define FUSER_BUNDLE_HEADER_SIZE 72
#define FUSER_BUNDLE_H_MAGIC 0              /* u8[8] */
#define FUSER_BUNDLE_H_VERSION 8            /* u32 */
#define FUSER_BUNDLE_H_HEADER_SIZE 12       /* u32 */
#define FUSER_BUNDLE_H_FILE_SIZE 16         /* u64 */
#define FUSER_BUNDLE_H_NUM_FUSIONS 24       /* u32 */
#define FUSER_BUNDLE_H_NUM_MODULES 28       /* u32 */
#define FUSER_BUNDLE_H_FUSION_TABLE 32      /* u64 */
#define FUSER_BUNDLE_H_MODULE_TABLE 40      /* u64 */
#define FUSER_BUNDLE_H_STRING_TABLE 48      /* u64 */
#define FUSER_BUNDLE_H_STRING_TABLE_SIZE 56 /* u64 */
#define FUSER_BUNDLE_H_CHECKSUM 64          /* u32, fuser_bundle_checksum */
#define FUSER_BUNDLE_H_MINOR 68             /* u32, the least the bundle needs */

/* ---- module record ------------------------------------------------------ */
#define FUSER_BUNDLE_MODULE_SIZE 32
#define FUSER_BUNDLE_M_NAME 0   /* u32 string */
#define FUSER_BUNDLE_M_KIND 4   /* u32 FUSER_BUNDLE_MODULE_* */
#define FUSER_BUNDLE_M_DATA 8   /* u64 offset */
#define FUSER_BUNDLE_M_SIZE 16  /* u64, including the terminating NUL */
#define FUSER_BUNDLE_M_TARGET 24 /* u32: SM version for PTX and cubin, else 0 */
#define FUSER_BUNDLE_M_ISA 28   /* u32: PTX ISA version * 10, else 0 */

#define FUSER_BUNDLE_MODULE_PTX 1      /* PTX text */
#define FUSER_BUNDLE_MODULE_EMULATOR 2 /* MLIR text for the CPU emulator */
/* The machine code (an ELF cubin, then the NUL every module ends with) of
 * the PTX module whose name it carries with this suffix, for the SM in
 * its target field: the runtime loads it instead of the PTX on a device of
 * exactly that compute capability (minor version 5). */
#define FUSER_BUNDLE_MODULE_CUBIN 3
#define FUSER_BUNDLE_CUBIN_SUFFIX ".cubin"

/* ---- fusion record -------------------------------------------------------- */
#define FUSER_BUNDLE_FUSION_SIZE 64
#define FUSER_BUNDLE_F_NAME 0          /* u32 string */
#define FUSER_BUNDLE_F_NUM_ARGS 4      /* u32 */
#define FUSER_BUNDLE_F_NUM_RESULTS 8   /* u32 */
#define FUSER_BUNDLE_F_NUM_DYN 12      /* u32 dynamic dims */
#define FUSER_BUNDLE_F_NUM_REGS 16     /* u32 */
#define FUSER_BUNDLE_F_NUM_INSTRS 20   /* u32 */
#define FUSER_BUNDLE_F_NUM_LAUNCHES 24 /* u32 */
#define FUSER_BUNDLE_F_NUM_INTER 28    /* u32 intermediate buffers */
#define FUSER_BUNDLE_F_TENSORS 32      /* u64 offset of tensor records */
#define FUSER_BUNDLE_F_INSTRS 40       /* u64 offset of instructions */
#define FUSER_BUNDLE_F_LAUNCHES 48     /* u64 offset of launch records */
#define FUSER_BUNDLE_F_PTX_MODULE 56   /* u32 module index */
#define FUSER_BUNDLE_F_EMU_MODULE 60   /* u32 module index or NONE */

/* ---- tensor record -------------------------------------------------------- */
#define FUSER_BUNDLE_TENSOR_SIZE 24
#define FUSER_BUNDLE_T_NAME 0      /* u32 string: an identifier */
#define FUSER_BUNDLE_T_DTYPE 4     /* u8 FUSER_BUNDLE_DTYPE_* */
#define FUSER_BUNDLE_T_RANK 5      /* u8, at most FUSER_MAX_RANK */
#define FUSER_BUNDLE_T_RESERVED 6  /* u16, 0 */
#define FUSER_BUNDLE_T_DIMS 8      /* u64 offset of i64[rank] */
/* u64 offset of i64[rank]: the argument's strides in elements, each >= 0
 * (0: an expanded dim) or -1 (dynamic: passed by the caller, read by
 * STRIDE); 0 (no record) for a dense row-major tensor, and always for a
 * result. Was a reserved 0 before strided arguments: an older runtime
 * refuses such a bundle as "reserved fields are not 0". */
#define FUSER_BUNDLE_T_STRIDES 16

#define FUSER_BUNDLE_DTYPE_I1 1
#define FUSER_BUNDLE_DTYPE_I8 2
#define FUSER_BUNDLE_DTYPE_I32 3
#define FUSER_BUNDLE_DTYPE_I64 4
#define FUSER_BUNDLE_DTYPE_F16 5
#define FUSER_BUNDLE_DTYPE_BF16 6
#define FUSER_BUNDLE_DTYPE_F32 7
#define FUSER_BUNDLE_DTYPE_F64 8
/* fp8 (docs/fp8.md): one byte, the OCP formats e4m3 (no infinity, NaN is
 * S.1111.111) and e5m2 (IEEE-like). Added in format 2 without a version
 * change: an older runtime refuses such a bundle as "unknown dtype". */
#define FUSER_BUNDLE_DTYPE_F8E4M3FN 9
#define FUSER_BUNDLE_DTYPE_F8E5M2 10
/* e8m0 (OCP MX scales, PyTorch's float8_e8m0fnu): an unsigned biased
 * exponent, 2^(code - 127); 0xff is NaN. */
#define FUSER_BUNDLE_DTYPE_F8E8M0FNU 11

/* ---- instruction ---------------------------------------------------------- */
#define FUSER_BUNDLE_INSTR_SIZE 24
#define FUSER_BUNDLE_I_OPCODE 0   /* u16 */
#define FUSER_BUNDLE_I_RESERVED 2 /* u16, 0 */
#define FUSER_BUNDLE_I_DST 4      /* u32 */
#define FUSER_BUNDLE_I_A 8        /* u32 */
#define FUSER_BUNDLE_I_B 12       /* u32 */
#define FUSER_BUNDLE_I_IMM 16     /* i64 */

#define FUSER_BUNDLE_OP_CONST 1
#define FUSER_BUNDLE_OP_DIM 2
#define FUSER_BUNDLE_OP_ADD 3
#define FUSER_BUNDLE_OP_SUB 4
#define FUSER_BUNDLE_OP_MUL 5
#define FUSER_BUNDLE_OP_DIV 6
#define FUSER_BUNDLE_OP_CEILDIV 7
#define FUSER_BUNDLE_OP_REM 8
#define FUSER_BUNDLE_OP_MIN 9
#define FUSER_BUNDLE_OP_MAX 10
#define FUSER_BUNDLE_OP_EQ 11
#define FUSER_BUNDLE_OP_NE 12
#define FUSER_BUNDLE_OP_LT 13
#define FUSER_BUNDLE_OP_LE 14
#define FUSER_BUNDLE_OP_AND 15
#define FUSER_BUNDLE_OP_OR 16
#define FUSER_BUNDLE_OP_SELECT 17
#define FUSER_BUNDLE_OP_ALIGNED 18
#define FUSER_BUNDLE_OP_ASSERT 19
#define FUSER_BUNDLE_OP_ALLOC 20
/* ALLOC's imm: 0, or this flag: the buffer's bytes are zero when the next
 * launch on the call's stream runs (the last-block counters). */
#define FUSER_BUNDLE_ALLOC_ZEROED 1
#define FUSER_BUNDLE_OP_LAUNCH 21
#define FUSER_BUNDLE_OP_RESULT_DIM 22
/* INDEX_CHECK (added in format 2 with gather and index_select; a runtime
 * older than it rejects the opcode): buffer `a` is the fusion's index error
 * word, i64[FUSER_INDEX_WORD_SIZE], zeroed by its ALLOC; the runtime waits
 * for the call's stream, reads it and fails the call when FLAG is set,
 * naming line SITE of string `imm` (one line per indexing op). */
#define FUSER_BUNDLE_OP_INDEX_CHECK 23
/* STRIDE (added with strided arguments): r[dst] = the stride in elements
 * of dim `b` of argument `a`, as the caller passed it (the dense row-major
 * stride when the caller passed none); argument `a` has a strides record
 * whose entry `b` is -1. */
#define FUSER_BUNDLE_OP_STRIDE 24
/* GEMM (minor version 1, with fuser.matmul and fuser.linear): a matrix
 * multiply through the driver's library (cuBLASLt on CUDA, a reference
 * GEMM on the emulator), described by the GEMM record at file offset
 * `imm` (8-aligned, inside the file); dst, a and b are NONE. It runs on the
 * call's stream after the launches before it and before those after it. */
#define FUSER_BUNDLE_OP_GEMM 25
/* GRID (minor version 3, a fusion sharded over devices: docs/sharding.md):
 * the fusion is one device's part of a program over a grid of devices,
 * described by the grid record at file offset `imm` (8-aligned, inside the
 * file); dst, a and b are NONE. At most one per fusion, before every
 * COLLECTIVE. At each call the runtime checks that the call has a
 * communicator (fuser_run_options.comm) of exactly the grid's number of
 * devices, unless the grid has one device. */
#define FUSER_BUNDLE_OP_GRID 26
/* COLLECTIVE (minor version 3): communication among the devices of a group
 * of the grid (NCCL on CUDA), described by the collective record at file
 * offset `imm`; dst, a and b are NONE. It runs on the call's stream after
 * the launches before it and before those after it. */
#define FUSER_BUNDLE_OP_COLLECTIVE 27
#define FUSER_BUNDLE_OP_LAST 27

/* ---- the index error word (what kernels record) ---------------------------
 * i64 elements: FLAG 1 once a thread met an index out of range (the thread
 * that set it writes the rest), SITE the indexing op (a line of
 * INDEX_CHECK's string), ELEMENT the row-major position in that op's result,
 * VALUE the index, BOUND the size it must be below. */
#define FUSER_INDEX_WORD_SIZE 8
#define FUSER_INDEX_WORD_FLAG 0
#define FUSER_INDEX_WORD_SITE 1
#define FUSER_INDEX_WORD_ELEMENT 2
#define FUSER_INDEX_WORD_VALUE 3
#define FUSER_INDEX_WORD_BOUND 4

/* ---- launch record -------------------------------------------------------- */
#define FUSER_BUNDLE_LAUNCH_SIZE 48
#define FUSER_BUNDLE_L_KERNEL 0     /* u32 string */
#define FUSER_BUNDLE_L_NUM_PARAMS 4 /* u32 */
#define FUSER_BUNDLE_L_PARAMS 8     /* u64 offset of parameter records */
#define FUSER_BUNDLE_L_GRID 16      /* u32[3] registers */
#define FUSER_BUNDLE_L_BLOCK 28     /* u32[3] registers */
#define FUSER_BUNDLE_L_SMEM 40      /* u32 register */
#define FUSER_BUNDLE_L_RESERVED 44  /* u32, 0 */

/* ---- GEMM record (minor version 1) -------------------------------------------
 * Row-major: for every b < r[BATCH],
 *   D_b[i, j] = epilogue(sum over l < r[K] of opA(A_b)[i, l] * opB(B_b)[l, j])
 * for i < r[M], j < r[N], where X_b starts r[STRIDE_X] * b elements after
 * buffer X (a stride of 0: every b reads the same matrix), opA(A)[i, l] is
 * A[i * r[LDA] + l], or A[l * r[LDA] + i] with FLAG_TRANS_A (A stored k x
 * m), opB(B)[l, j] is B[l * r[LDB] + j], or B[j * r[LDB] + l] with
 * FLAG_TRANS_B (B stored n x k: a linear layer's weight), and D_b[i, j] is
 * D[i * r[LDD] + j]. Products accumulate in f32 (f64 for f64 operands),
 * the epilogue applies in that type and the result is rounded once to D's
 * dtype. An empty product (K = 0) gives 0 before the epilogue. D is a
 * result or an intermediate and none of A, B and the bias; an intermediate
 * among them is ALLOCated before the GEMM. A reader checks at each call
 * that the sizes and strides are >= 0, LDA >= K (>= M with TRANS_A), LDB >=
 * N (>= K with TRANS_B), LDD >= N, STRIDE_D != 0 with BATCH > 1, and that
 * each operand lies inside its buffer (docs/bundle.md). */
#define FUSER_BUNDLE_GEMM_SIZE 64
#define FUSER_BUNDLE_G_A 0           /* u32 buffer */
#define FUSER_BUNDLE_G_B 4           /* u32 buffer */
#define FUSER_BUNDLE_G_D 8           /* u32 buffer written */
#define FUSER_BUNDLE_G_BIAS 12       /* u32 buffer of N elements, or NONE; written with BGRAD */
#define FUSER_BUNDLE_G_M 16          /* u32 register */
#define FUSER_BUNDLE_G_N 20          /* u32 register */
#define FUSER_BUNDLE_G_K 24          /* u32 register */
#define FUSER_BUNDLE_G_BATCH 28      /* u32 register */
#define FUSER_BUNDLE_G_LDA 32        /* u32 register */
#define FUSER_BUNDLE_G_LDB 36        /* u32 register */
#define FUSER_BUNDLE_G_LDD 40        /* u32 register */
#define FUSER_BUNDLE_G_STRIDE_A 44   /* u32 register */
#define FUSER_BUNDLE_G_STRIDE_B 48   /* u32 register */
#define FUSER_BUNDLE_G_STRIDE_D 52   /* u32 register */
#define FUSER_BUNDLE_G_AB_DTYPE 56   /* u8: f16, bf16, f32 or f64 */
/* u8: D's and the bias's dtype: AB_DTYPE, or f32 with f16 or bf16
 * operands (the pairs cuBLASLt runs; a reader refuses any other) */
#define FUSER_BUNDLE_G_D_DTYPE 57
#define FUSER_BUNDLE_G_FLAGS 58      /* u8: FUSER_BUNDLE_GEMM_FLAG_* */
#define FUSER_BUNDLE_G_EPILOGUE 59   /* u8: FUSER_BUNDLE_GEMM_EPILOGUE_* */
/* u32: with EPILOGUE_AUX (minor 2), the buffer the pre-activation is
 * written to, m x n row-major with LDD and STRIDE_D as D, D's dtype;
 * otherwise 0 (a reserved field before minor 2). */
#define FUSER_BUNDLE_G_AUX 60
#define FUSER_BUNDLE_GEMM_FLAG_TRANS_A 1
#define FUSER_BUNDLE_GEMM_FLAG_TRANS_B 2
/* f32 operands may be multiplied as TF32 (10-bit mantissas). */
#define FUSER_BUNDLE_GEMM_FLAG_TF32 4
/* The epilogue: bit 0 adds bias[j] (BIAS is a buffer), bits 1-2 pick an
 * activation applied after it, in the accumulation type, before the one
 * rounding: relu(x) = x < 0 ? 0 : x; gelu(x) with tanh's approximation,
 * 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (torch's
 * approximate='tanh'). Bit 3 (AUX, minor 2, with gelu only) also writes
 * the activation's input, after the bias, rounded once to D's dtype, to
 * buffer AUX (a training forward keeps it for the backward: cuBLASLt's
 * GELU_AUX, which needs LDD and STRIDE_D multiples of 8). Bits 4 and 5
 * (BGRAD_A, BGRAD_B; minor 4; alone, value 16 or 32) write a bias
 * gradient instead of reading a bias: BIAS is then a buffer written, M
 * elements with BGRAD_A, BIAS[i] = sum over l < K of opA(A)[i, l], or N
 * elements with BGRAD_B, BIAS[j] = sum over l < K of opB(B)[l, j], each
 * accumulated in the accumulation type in order of l and rounded once to
 * D's dtype (0 when K = 0); D is the plain product. A training step's
 * linear backward: db = sum of dy over rows beside dW = dy^T @ x
 * (cuBLASLt's BGRADB, our A being its B). They need BATCH = 1 and N > 0
 * with BGRAD_A, M > 0 with BGRAD_B, at each call. Values other than 0-5,
 * 12, 13, 16 and 32 are unknown. */
#define FUSER_BUNDLE_GEMM_EPILOGUE_NONE 0
#define FUSER_BUNDLE_GEMM_EPILOGUE_BIAS 1
#define FUSER_BUNDLE_GEMM_EPILOGUE_RELU 2
#define FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_RELU 3
#define FUSER_BUNDLE_GEMM_EPILOGUE_GELU 4
#define FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU 5
#define FUSER_BUNDLE_GEMM_EPILOGUE_AUX 8
#define FUSER_BUNDLE_GEMM_EPILOGUE_GELU_AUX 12
#define FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU_AUX 13
#define FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A 16
#define FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B 32

/* ---- grid record (minor version 3) ----------------------------------------
 * The device grid a sharded fusion runs on (shard.grid): AXES axes of the
 * sizes in SIZES (the rest 0), devices numbered row-major over them (the
 * communicator's rank r is the device whose coordinates, last axis
 * fastest, give r). SPLITS: one u8 per dim of every argument, then every
 * result, in signature order: the bit mask of the grid axes that split
 * that dim (bit i: axis i; 0: every device holds the dim whole). Several
 * axes on one dim split it in ascending axis order (the first the
 * outermost). The signature's dims are one device's: the whole tensor's
 * dim is the local dim times the product of the sizes of its axes. An
 * axis splits at most one dim of a tensor. A tensor no axis splits is
 * held whole, the same on every device (an argument) or computed the same
 * by every device (a result). A reader refuses more than 2^31 - 1 devices
 * (a communicator's ranks are an int). */
#define FUSER_BUNDLE_GRID_SIZE 32
#define FUSER_BUNDLE_GR_AXES 0      /* u32: 1 .. FUSER_BUNDLE_GRID_MAX_AXES */
#define FUSER_BUNDLE_GR_RESERVED 4  /* u32, 0 */
#define FUSER_BUNDLE_GR_SIZES 8     /* u32[4]: each >= 1, unused ones 0 */
/* u64 offset of u8[sum of the ranks]: bytes, so not 8-aligned */
#define FUSER_BUNDLE_GR_SPLITS 24
#define FUSER_BUNDLE_GRID_MAX_AXES 4

/* ---- collective record (minor version 3) ------------------------------------
 * Among the devices of GROUP (the bit mask of grid axes: devices that agree
 * on every other axis form a group; a group's members are ordered by their
 * coordinates on the group's axes, row-major, ascending axes), with
 * n = r[COUNT] elements of DTYPE per member part, member j of a group of
 * size G:
 *   ALL_REDUCE      DST[0, n) = reduce over members of SRC[0, n)
 *   ALL_GATHER      DST[k n, (k+1) n) = member k's SRC[0, n), k < G
 *   REDUCE_SCATTER  DST[0, n) = reduce over members of SRC[j n, (j+1) n)
 *   SLICE           DST[0, n) = SRC[j n, (j+1) n) (no communication: every
 *                   member holds SRC whole, each keeps its part)
 *   ALL_TO_ALL      DST[k n, (k+1) n) = member k's SRC[j n, (j+1) n), k < G
 *                   (each member sends its part k to member k)
 * REDUCTION (ALL_REDUCE, REDUCE_SCATTER; else 0): sum, prod, max, min, or
 * avg (sum / G; floats only). i1 reduces as unsigned bytes (max is any,
 * min is all). No reduction on fp8. SRC and DST are distinct buffers; DST
 * is a result or an intermediate (ALLOCated before), SRC any buffer. The
 * order in which members' values combine is the library's (NCCL's ring or
 * tree); the fake NCCL of the tests combines in member order. A reader
 * checks at each call that SRC holds G n elements (REDUCE_SCATTER, SLICE,
 * ALL_TO_ALL) or n, and DST G n (ALL_GATHER, ALL_TO_ALL) or n, within the
 * call's buffers. */
#define FUSER_BUNDLE_COLLECTIVE_SIZE 24
#define FUSER_BUNDLE_C_KIND 0       /* u8 FUSER_BUNDLE_COLLECTIVE_* */
#define FUSER_BUNDLE_C_REDUCTION 1  /* u8 FUSER_BUNDLE_REDUCTION_* or 0 */
#define FUSER_BUNDLE_C_DTYPE 2      /* u8 FUSER_BUNDLE_DTYPE_* */
#define FUSER_BUNDLE_C_GROUP 3      /* u8: mask of grid axes, not 0 */
#define FUSER_BUNDLE_C_SRC 4        /* u32 buffer */
#define FUSER_BUNDLE_C_DST 8        /* u32 buffer written */
#define FUSER_BUNDLE_C_COUNT 12     /* u32 register: elements per part */
#define FUSER_BUNDLE_C_RESERVED 16  /* u64, 0 */
#define FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE 1
#define FUSER_BUNDLE_COLLECTIVE_ALL_GATHER 2
#define FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER 3
#define FUSER_BUNDLE_COLLECTIVE_SLICE 4
#define FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL 5
#define FUSER_BUNDLE_REDUCTION_SUM 1
#define FUSER_BUNDLE_REDUCTION_PROD 2
#define FUSER_BUNDLE_REDUCTION_MAX 3
#define FUSER_BUNDLE_REDUCTION_MIN 4
#define FUSER_BUNDLE_REDUCTION_AVG 5

/* ---- parameter record ----------------------------------------------------- */
#define FUSER_BUNDLE_PARAM_SIZE 8
#define FUSER_BUNDLE_P_KIND 0     /* u8 FUSER_BUNDLE_PARAM_* */
#define FUSER_BUNDLE_P_RESERVED 1 /* u8[3], 0 */
#define FUSER_BUNDLE_P_INDEX 4    /* u32 buffer or register */

#define FUSER_BUNDLE_PARAM_PTR 1 /* pointer to buffer `index`, 8 bytes */
#define FUSER_BUNDLE_PARAM_I32 2 /* register `index` as i32 */
#define FUSER_BUNDLE_PARAM_I64 3 /* register `index` as i64 */

/* ---- the checksum ----------------------------------------------------------
 * CRC-32 with the zlib/PNG polynomial (0xEDB88320 reflected, initial value
 * and final XOR 0xFFFFFFFF): what zlib's crc32(), Python's zlib.crc32 and
 * `gzip`'s trailer compute. fuser_bundle_crc32 continues a running value
 * the way zlib's crc32(crc, data, size) does; start with 0. */
#if defined(__clang__)
/* No fuzzing coverage for a loop with nothing to cover: its per-byte
 * compare hooks made the checksum most of a fuzz_bundle run. */
#define FUSER_BUNDLE_NO_COVERAGE \
  __attribute__((no_sanitize("coverage"), noinline))
#else
#define FUSER_BUNDLE_NO_COVERAGE
#endif

FUSER_BUNDLE_NO_COVERAGE
static inline uint32_t fuser_bundle_crc32(uint32_t crc, const void *data,
                                          size_t size) {
  /* A byte at a time: the 256-entry table of the polynomial (a load can
   * hash a bundle of megabytes; fuzzers run this under ASan). */
  static const uint32_t table[256] = {
      0x00000000u, 0x77073096u, 0xEE0E612Cu, 0x990951BAu,
      0x076DC419u, 0x706AF48Fu, 0xE963A535u, 0x9E6495A3u,
      0x0EDB8832u, 0x79DCB8A4u, 0xE0D5E91Eu, 0x97D2D988u,
      0x09B64C2Bu, 0x7EB17CBDu, 0xE7B82D07u, 0x90BF1D91u,
      0x1DB71064u, 0x6AB020F2u, 0xF3B97148u, 0x84BE41DEu,
      0x1ADAD47Du, 0x6DDDE4EBu, 0xF4D4B551u, 0x83D385C7u,
      0x136C9856u, 0x646BA8C0u, 0xFD62F97Au, 0x8A65C9ECu,
      0x14015C4Fu, 0x63066CD9u, 0xFA0F3D63u, 0x8D080DF5u,
      0x3B6E20C8u, 0x4C69105Eu, 0xD56041E4u, 0xA2677172u,
      0x3C03E4D1u, 0x4B04D447u, 0xD20D85FDu, 0xA50AB56Bu,
      0x35B5A8FAu, 0x42B2986Cu, 0xDBBBC9D6u, 0xACBCF940u,
      0x32D86CE3u, 0x45DF5C75u, 0xDCD60DCFu, 0xABD13D59u,
      0x26D930ACu, 0x51DE003Au, 0xC8D75180u, 0xBFD06116u,
      0x21B4F4B5u, 0x56B3C423u, 0xCFBA9599u, 0xB8BDA50Fu,
      0x2802B89Eu, 0x5F058808u, 0xC60CD9B2u, 0xB10BE924u,
      0x2F6F7C87u, 0x58684C11u, 0xC1611DABu, 0xB6662D3Du,
      0x76DC4190u, 0x01DB7106u, 0x98D220BCu, 0xEFD5102Au,
      0x71B18589u, 0x06B6B51Fu, 0x9FBFE4A5u, 0xE8B8D433u,
      0x7807C9A2u, 0x0F00F934u, 0x9609A88Eu, 0xE10E9818u,
      0x7F6A0DBBu, 0x086D3D2Du, 0x91646C97u, 0xE6635C01u,
      0x6B6B51F4u, 0x1C6C6162u, 0x856530D8u, 0xF262004Eu,
      0x6C0695EDu, 0x1B01A57Bu, 0x8208F4C1u, 0xF50FC457u,
      0x65B0D9C6u, 0x12B7E950u, 0x8BBEB8EAu, 0xFCB9887Cu,
      0x62DD1DDFu, 0x15DA2D49u, 0x8CD37CF3u, 0xFBD44C65u,
      0x4DB26158u, 0x3AB551CEu, 0xA3BC0074u, 0xD4BB30E2u,
      0x4ADFA541u, 0x3DD895D7u, 0xA4D1C46Du, 0xD3D6F4FBu,
      0x4369E96Au, 0x346ED9FCu, 0xAD678846u, 0xDA60B8D0u,
      0x44042D73u, 0x33031DE5u, 0xAA0A4C5Fu, 0xDD0D7CC9u,
      0x5005713Cu, 0x270241AAu, 0xBE0B1010u, 0xC90C2086u,
      0x5768B525u, 0x206F85B3u, 0xB966D409u, 0xCE61E49Fu,
      0x5EDEF90Eu, 0x29D9C998u, 0xB0D09822u, 0xC7D7A8B4u,
      0x59B33D17u, 0x2EB40D81u, 0xB7BD5C3Bu, 0xC0BA6CADu,
      0xEDB88320u, 0x9ABFB3B6u, 0x03B6E20Cu, 0x74B1D29Au,
      0xEAD54739u, 0x9DD277AFu, 0x04DB2615u, 0x73DC1683u,
      0xE3630B12u, 0x94643B84u, 0x0D6D6A3Eu, 0x7A6A5AA8u,
      0xE40ECF0Bu, 0x9309FF9Du, 0x0A00AE27u, 0x7D079EB1u,
      0xF00F9344u, 0x8708A3D2u, 0x1E01F268u, 0x6906C2FEu,
      0xF762575Du, 0x806567CBu, 0x196C3671u, 0x6E6B06E7u,
      0xFED41B76u, 0x89D32BE0u, 0x10DA7A5Au, 0x67DD4ACCu,
      0xF9B9DF6Fu, 0x8EBEEFF9u, 0x17B7BE43u, 0x60B08ED5u,
      0xD6D6A3E8u, 0xA1D1937Eu, 0x38D8C2C4u, 0x4FDFF252u,
      0xD1BB67F1u, 0xA6BC5767u, 0x3FB506DDu, 0x48B2364Bu,
      0xD80D2BDAu, 0xAF0A1B4Cu, 0x36034AF6u, 0x41047A60u,
      0xDF60EFC3u, 0xA867DF55u, 0x316E8EEFu, 0x4669BE79u,
      0xCB61B38Cu, 0xBC66831Au, 0x256FD2A0u, 0x5268E236u,
      0xCC0C7795u, 0xBB0B4703u, 0x220216B9u, 0x5505262Fu,
      0xC5BA3BBEu, 0xB2BD0B28u, 0x2BB45A92u, 0x5CB36A04u,
      0xC2D7FFA7u, 0xB5D0CF31u, 0x2CD99E8Bu, 0x5BDEAE1Du,
      0x9B64C2B0u, 0xEC63F226u, 0x756AA39Cu, 0x026D930Au,
      0x9C0906A9u, 0xEB0E363Fu, 0x72076785u, 0x05005713u,
      0x95BF4A82u, 0xE2B87A14u, 0x7BB12BAEu, 0x0CB61B38u,
      0x92D28E9Bu, 0xE5D5BE0Du, 0x7CDCEFB7u, 0x0BDBDF21u,
      0x86D3D2D4u, 0xF1D4E242u, 0x68DDB3F8u, 0x1FDA836Eu,
      0x81BE16CDu, 0xF6B9265Bu, 0x6FB077E1u, 0x18B74777u,
      0x88085AE6u, 0xFF0F6A70u, 0x66063BCAu, 0x11010B5Cu,
      0x8F659EFFu, 0xF862AE69u, 0x616BFFD3u, 0x166CCF45u,
      0xA00AE278u, 0xD70DD2EEu, 0x4E048354u, 0x3903B3C2u,
      0xA7672661u, 0xD06016F7u, 0x4969474Du, 0x3E6E77DBu,
      0xAED16A4Au, 0xD9D65ADCu, 0x40DF0B66u, 0x37D83BF0u,
      0xA9BCAE53u, 0xDEBB9EC5u, 0x47B2CF7Fu, 0x30B5FFE9u,
      0xBDBDF21Cu, 0xCABAC28Au, 0x53B39330u, 0x24B4A3A6u,
      0xBAD03605u, 0xCDD70693u, 0x54DE5729u, 0x23D967BFu,
      0xB3667A2Eu, 0xC4614AB8u, 0x5D681B02u, 0x2A6F2B94u,
      0xB40BBE37u, 0xC30C8EA1u, 0x5A05DF1Bu, 0x2D02EF8Du};
  const unsigned char *p = (const unsigned char *)data;
  uint32_t c = ~crc;
  for (size_t i = 0; i < size; i++) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return ~c;
}

/* The checksum of a bundle of `size` bytes (size >= FUSER_BUNDLE_HEADER_SIZE):
 * the CRC-32 of the whole file with its checksum field (4 bytes at
 * FUSER_BUNDLE_H_CHECKSUM) taken as 0. A writer stores it there,
 * little-endian, after everything else; a reader compares. */
static inline uint32_t fuser_bundle_checksum(const void *bundle, size_t size) {
  static const unsigned char zero[4] = {0, 0, 0, 0};
  const unsigned char *p = (const unsigned char *)bundle;
  uint32_t c = fuser_bundle_crc32(0, p, FUSER_BUNDLE_H_CHECKSUM);
  c = fuser_bundle_crc32(c, zero, 4);
  return fuser_bundle_crc32(c, p + FUSER_BUNDLE_H_CHECKSUM + 4,
                            size - (FUSER_BUNDLE_H_CHECKSUM + 4));
}

#endif /* FUSER_BUNDLE_FORMAT_H */
