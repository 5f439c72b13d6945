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
#define FUSER_BUNDLE_H_RESERVED 68          /* u32, 0 */

/* ---- module record ------------------------------------------------------ */
#define FUSER_BUNDLE_MODULE_SIZE 32
#define FUSER_BUNDLE_M_NAME 0   /* u32 string */
#define FUSER_BUNDLE_M_KIND 4   /* u32 FUSER_BUNDLE_MODULE_* */
#define FUSER_BUNDLE_M_DATA 8   /* u64 offset */
#define FUSER_BUNDLE_M_SIZE 16  /* u64, including the terminating NUL */
#define FUSER_BUNDLE_M_TARGET 24 /* u32: SM version for PTX, else 0 */
#define FUSER_BUNDLE_M_ISA 28   /* u32: PTX ISA version * 10, else 0 */

#define FUSER_BUNDLE_MODULE_PTX 1      /* PTX text */
#define FUSER_BUNDLE_MODULE_EMULATOR 2 /* MLIR text for the CPU emulator */

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
#define FUSER_BUNDLE_T_RESERVED2 16 /* u64, 0 */

#define FUSER_BUNDLE_DTYPE_I1 1
#define FUSER_BUNDLE_DTYPE_I8 2
#define FUSER_BUNDLE_DTYPE_I32 3
#define FUSER_BUNDLE_DTYPE_I64 4
#define FUSER_BUNDLE_DTYPE_F16 5
#define FUSER_BUNDLE_DTYPE_BF16 6
#define FUSER_BUNDLE_DTYPE_F32 7
#define FUSER_BUNDLE_DTYPE_F64 8

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
#define FUSER_BUNDLE_OP_LAUNCH 21
#define FUSER_BUNDLE_OP_RESULT_DIM 22
#define FUSER_BUNDLE_OP_LAST 22

/* ---- launch record -------------------------------------------------------- */
#define FUSER_BUNDLE_LAUNCH_SIZE 48
#define FUSER_BUNDLE_L_KERNEL 0     /* u32 string */
#define FUSER_BUNDLE_L_NUM_PARAMS 4 /* u32 */
#define FUSER_BUNDLE_L_PARAMS 8     /* u64 offset of parameter records */
#define FUSER_BUNDLE_L_GRID 16      /* u32[3] registers */
#define FUSER_BUNDLE_L_BLOCK 28     /* u32[3] registers */
#define FUSER_BUNDLE_L_SMEM 40      /* u32 register */
#define FUSER_BUNDLE_L_RESERVED 44  /* u32, 0 */

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
static inline uint32_t fuser_bundle_crc32(uint32_t crc, const void *data,
                                          size_t size) {
  /* Four bits at a time: a 16-entry table, small enough for a header. */
  static const uint32_t table[16] = {
      0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu,
      0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
      0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
      0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
  const unsigned char *p = (const unsigned char *)data;
  uint32_t c = ~crc;
  for (size_t i = 0; i < size; i++) {
    c ^= p[i];
    c = (c >> 4) ^ table[c & 15];
    c = (c >> 4) ^ table[c & 15];
  }
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
