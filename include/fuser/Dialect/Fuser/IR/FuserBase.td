//===- FuserBase.td - fuser dialect definition and types ----*- tablegen -*-===//
//
// The `fuser` dialect: tensor ops with PyTorch semantics that fuser cuts into
// few GPU kernels. This file holds the dialect, the type constraints and the
// enum attributes shared by the ops in FuserOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERBASE_TD
#define FUSER_DIALECT_FUSER_IR_FUSERBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fuser_Dialect : Dialect {
  let name = "fuser";
  let cppNamespace = "::mlir::fuser";
  let summary = "Tensor ops with PyTorch semantics, the input of the fuser compiler";
  let description = [{
    The `fuser` dialect describes a fusion: a `func.func` whose arguments and
    results are ranked tensors, built from elementwise, broadcast, reduction,
    shape and composite ops. Every op follows the semantics of the PyTorch op
    of the same name. Tensors have static or dynamic (`?`) dims and one of the
    element types i1, i8, i32, i64, f16, bf16, f32, f64, and the fp8 formats
    f8E4M3FN, f8E5M2 and f8E8M0FNU (MX scales), which only move and convert
    (docs/fp8.md).

    Elementwise operands share one element type (casts are explicit) and one
    shape, except that a rank-0 tensor combines with any shape.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  // `fuser.strides` on a fusion argument (a view), never on a result.
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // `fuser.schedule` and `fuser.schedules` hold #fuser.schedule values.
  let hasOperationAttrVerify = 1;
}

class Fuser_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuser_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Fuser_AnyElement : AnyTypeOf<[I1, I8, I32, I64, F16, BF16, F32, F64],
                                 "fuser element type">;
def Fuser_NumericElement : AnyTypeOf<[I8, I32, I64, F16, BF16, F32, F64],
                                     "numeric fuser element type">;
def Fuser_IntElement : AnyTypeOf<[I1, I8, I32, I64], "fuser integer or bool">;
def Fuser_FloatElement : AnyTypeOf<[F16, BF16, F32, F64], "fuser float">;

// fp8 tensors (f8E4M3FN, f8E5M2) only move and convert: the ops that copy
// elements (cast, broadcast, reshape, permute, slice, concat, gather,
// index_select) take Fuser_StorageTensor; everything that computes takes the
// constraints below, whose message says to cast to f32 first.
// A ranked tensor of `types` whose verifier message lists the types in
// fuser's spelling (upstream's says "16-bit float or bfloat16 type or ...").
class Fuser_TensorOf<list<Type> types, string summary>
    : Type<RankedTensorOf<types>.predicate, summary, "::mlir::RankedTensorType">;

def Fuser_Tensor : Fuser_TensorOf<[I1, I8, I32, I64, F16, BF16, F32, F64],
    "ranked tensor of i1, i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to "
    "f32 first)">;
def Fuser_NumericTensor : Fuser_TensorOf<[I8, I32, I64, F16, BF16, F32, F64],
    "ranked tensor of i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to f32 "
    "first)">;
// The same types, for sum and prod, whose PyTorch form of a bool tensor
// is int64.
def Fuser_SummableTensor : Fuser_TensorOf<[I8, I32, I64, F16, BF16, F32, F64],
    "ranked tensor of i8, i32, i64, f16, bf16, f32 or f64 (i1: cast to i64 "
    "first, as PyTorch sums bools in int64; fp8: cast to f32 first)">;
def Fuser_FloatTensor : Fuser_TensorOf<[F16, BF16, F32, F64],
    "ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first)">;
def Fuser_StorageTensor
    : RankedTensorOf<[I1, I8, I32, I64, F16, BF16, F32, F64, F8E4M3FN, F8E5M2,
                      F8E8M0FNU]>;
def Fuser_IntTensor : RankedTensorOf<[I1, I8, I32, I64]>;
def Fuser_SignedTensor : Fuser_TensorOf<[I8, I32, I64],
    "ranked tensor of i8, i32 or i64">;
def Fuser_BoolTensor : RankedTensorOf<[I1]>;
def Fuser_Fp8DataTensor : Fuser_TensorOf<[F8E4M3FN, F8E5M2],
    "ranked tensor of f8E4M3FN or f8E5M2">;
def Fuser_Fp8ScaleTensor : Fuser_TensorOf<[F32, F8E8M0FNU],
    "ranked tensor of f32 or f8E8M0FNU">;
def Fuser_F32Tensor : Fuser_TensorOf<[F32], "ranked tensor of f32">;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Fuser_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation used by gelu", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::fuser";
  let genSpecializedAttr = 0;
}
def Fuser_GeluApproximationAttr
    : EnumAttr<Fuser_Dialect, Fuser_GeluApproximation, "gelu_approximation">;

def Fuser_RoundingMode : I32EnumAttr<"RoundingMode",
    "rounding of a division (PyTorch's rounding_mode)", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"trunc", 1>,
      I32EnumAttrCase<"floor", 2>]> {
  let cppNamespace = "::mlir::fuser";
  let genSpecializedAttr = 0;
}
def Fuser_RoundingModeAttr
    : EnumAttr<Fuser_Dialect, Fuser_RoundingMode, "rounding_mode">;

def Fuser_QuantGranularity : I32EnumAttr<"QuantGranularity",
    "which elements share one fp8 scale", [
      I32EnumAttrCase<"tensor", 0>,
      I32EnumAttrCase<"row", 1>,
      I32EnumAttrCase<"block", 2>]> {
  let cppNamespace = "::mlir::fuser";
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

def Fuser_ScheduleAttr : AttrDef<Fuser_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "Schedule decisions for a fusion's or a segment's kernels";
  let description = [{
    Decisions a scheduler takes, each `KEY = VALUE`, the rest left to its
    heuristic: `#fuser.schedule<pointwise.block = 128, pointwise.units = 2>`.
    The keys and their legal values are one table (Schedule.h,
    docs/schedulers.md); an unknown key, a value out of range or values that
    disagree (a grid floor above its cap) are errors that name the key.

    On a fusion as `fuser.schedule`: forced for every segment of the fusion
    that reads the key, and with `KEY[SEGMENT] = VALUE` for one segment
    alone (winning there over the key without a segment).
    On a segmented fusion as `fuser.schedules`, one per segment in the order
    of `fuser.schedulers`: what fuser-schedule decided (or a user wrote), the
    only schedule fuser-emit-kernels reads.
  }];
  let parameters = (ins "::mlir::DictionaryAttr":$entries);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERBASE_TD
