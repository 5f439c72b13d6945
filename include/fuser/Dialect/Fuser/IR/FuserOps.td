//===- FuserOps.td - fuser dialect ops ----------------------*- tablegen -*-===//
//
// Every op of the fuser dialect. Semantics are PyTorch's for the op of the
// same name; docs/dialect.md has an example per family.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSEROPS_TD
#define FUSER_DIALECT_FUSER_IR_FUSEROPS_TD

include "fuser/Dialect/Fuser/IR/FuserBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Unary op whose result has its operand's type.
class Fuser_UnaryOp<string mnemonic, Type operandType, string desc,
                    list<Trait> traits = []>
    : Fuser_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType])> {
  let summary = desc;
  let description = "Elementwise `" # mnemonic # "`, as `torch." # mnemonic #
                    "`. " # desc # ".";
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// Unary predicate: i1 result of the operand's shape.
class Fuser_UnaryPredicateOp<string mnemonic, string desc>
    : Fuser_Op<mnemonic, [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = desc;
  let description = "Elementwise `" # mnemonic # "`, as `torch." # mnemonic #
                    "`: " # desc # ". Integer operands give the answer for a "
                    "finite number.";
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// Binary elementwise op. Operands share an element type; their shapes match,
// or one of them has rank 0. The result type is inferred.
class Fuser_BinaryOp<string mnemonic, Type operandType, string desc,
                     list<Trait> traits = []>
    : Fuser_Op<mnemonic, !listconcat(traits,
          [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let summary = desc;
  let description = "Elementwise `" # mnemonic # "`: " # desc # ". Operands "
      "share an element type; their shapes match or one has rank 0.";
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<ElementwiseTypes>(type($lhs), type($rhs))
  }];
}

class Fuser_CompareOp<string mnemonic, string desc>
    : Fuser_BinaryOp<mnemonic, Fuser_Tensor, desc # " (i1 result)"> {
  let results = (outs Fuser_BoolTensor:$result);
}

def Fuser_NegOp : Fuser_UnaryOp<"neg", Fuser_NumericTensor, "negation"> {
  let hasFolder = 1;
}
def Fuser_AbsOp : Fuser_UnaryOp<"abs", Fuser_NumericTensor, "absolute value"> {
  let hasFolder = 1;
}
def Fuser_ExpOp : Fuser_UnaryOp<"exp", Fuser_FloatTensor, "e raised to x">;
def Fuser_Exp2Op : Fuser_UnaryOp<"exp2", Fuser_FloatTensor, "2 raised to x">;
def Fuser_Expm1Op : Fuser_UnaryOp<"expm1", Fuser_FloatTensor, "exp(x) - 1, accurate near 0">;
def Fuser_LogOp : Fuser_UnaryOp<"log", Fuser_FloatTensor, "natural logarithm">;
def Fuser_Log2Op : Fuser_UnaryOp<"log2", Fuser_FloatTensor, "base-2 logarithm">;
def Fuser_Log1pOp : Fuser_UnaryOp<"log1p", Fuser_FloatTensor, "log(1 + x), accurate near 0">;
def Fuser_SqrtOp : Fuser_UnaryOp<"sqrt", Fuser_FloatTensor, "square root">;
def Fuser_RsqrtOp : Fuser_UnaryOp<"rsqrt", Fuser_FloatTensor, "reciprocal square root">;
def Fuser_ReciprocalOp : Fuser_UnaryOp<"reciprocal", Fuser_FloatTensor, "1 / x">;
def Fuser_SinOp : Fuser_UnaryOp<"sin", Fuser_FloatTensor, "sine">;
def Fuser_CosOp : Fuser_UnaryOp<"cos", Fuser_FloatTensor, "cosine">;
def Fuser_TanhOp : Fuser_UnaryOp<"tanh", Fuser_FloatTensor, "hyperbolic tangent">;
def Fuser_SigmoidOp : Fuser_UnaryOp<"sigmoid", Fuser_FloatTensor, "1 / (1 + exp(-x))">;
def Fuser_ErfOp : Fuser_UnaryOp<"erf", Fuser_FloatTensor, "error function">;
def Fuser_Log10Op : Fuser_UnaryOp<"log10", Fuser_FloatTensor, "base-10 logarithm">;
def Fuser_TanOp : Fuser_UnaryOp<"tan", Fuser_FloatTensor, "tangent">;
def Fuser_AsinOp : Fuser_UnaryOp<"asin", Fuser_FloatTensor, "arcsine; NaN outside [-1, 1]">;
def Fuser_AcosOp : Fuser_UnaryOp<"acos", Fuser_FloatTensor, "arccosine; NaN outside [-1, 1]">;
def Fuser_AtanOp : Fuser_UnaryOp<"atan", Fuser_FloatTensor, "arctangent">;
def Fuser_SinhOp : Fuser_UnaryOp<"sinh", Fuser_FloatTensor, "hyperbolic sine">;
def Fuser_CoshOp : Fuser_UnaryOp<"cosh", Fuser_FloatTensor, "hyperbolic cosine">;
def Fuser_AsinhOp : Fuser_UnaryOp<"asinh", Fuser_FloatTensor, "inverse hyperbolic sine">;
def Fuser_AcoshOp : Fuser_UnaryOp<"acosh", Fuser_FloatTensor,
    "inverse hyperbolic cosine; NaN below 1">;
def Fuser_AtanhOp : Fuser_UnaryOp<"atanh", Fuser_FloatTensor,
    "inverse hyperbolic tangent; NaN outside [-1, 1]">;
def Fuser_ReluOp : Fuser_UnaryOp<"relu", Fuser_NumericTensor, "max(x, 0); NaN stays NaN">;
def Fuser_SiluOp : Fuser_UnaryOp<"silu", Fuser_FloatTensor, "x * sigmoid(x)">;
def Fuser_FloorOp : Fuser_UnaryOp<"floor", Fuser_NumericTensor,
    "round toward -inf; the identity on integers">;
def Fuser_CeilOp : Fuser_UnaryOp<"ceil", Fuser_NumericTensor,
    "round toward +inf; the identity on integers">;
def Fuser_RoundOp : Fuser_UnaryOp<"round", Fuser_NumericTensor,
    "round half to even; the identity on integers">;
def Fuser_TruncOp : Fuser_UnaryOp<"trunc", Fuser_NumericTensor,
    "round toward 0; the identity on integers">;
def Fuser_FracOp : Fuser_UnaryOp<"frac", Fuser_FloatTensor,
    "x - trunc(x), exactly: the fractional part with x's sign; NaN for an infinity">;
def Fuser_SignOp : Fuser_UnaryOp<"sign", Fuser_NumericTensor,
    "-1, 0 or 1 by the sign of x; 0 for NaN, as PyTorch's (0 < x) - (x < 0)">;
def Fuser_NotOp : Fuser_UnaryOp<"not", Fuser_IntTensor,
    "bitwise not; logical not on i1">;

def Fuser_GeluOp : Fuser_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `torch.nn.functional.gelu`: `x * 0.5 * (1 + erf(x / sqrt(2)))`, or with
    `approximate = tanh`, `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    ```mlir
    %0 = fuser.gelu %x approximate = tanh : tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input,
      DefaultValuedAttr<Fuser_GeluApproximationAttr,
                        "::mlir::fuser::GeluApproximation::none">:$approximate);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` `=` `` $approximate^)? attr-dict `:` type($input)
  }];
}

def Fuser_IsNanOp : Fuser_UnaryPredicateOp<"isnan", "x is NaN">;
def Fuser_IsInfOp : Fuser_UnaryPredicateOp<"isinf", "x is +inf or -inf">;
def Fuser_IsFiniteOp : Fuser_UnaryPredicateOp<"isfinite", "x is neither NaN nor infinite">;
def Fuser_IsPosInfOp : Fuser_UnaryPredicateOp<"isposinf", "x is +inf">;
def Fuser_IsNegInfOp : Fuser_UnaryPredicateOp<"isneginf", "x is -inf">;
def Fuser_SignbitOp : Fuser_UnaryPredicateOp<"signbit",
    "x's sign bit is set: true for -0.0 and for a NaN whose sign bit is set, "
    "false for bools">;

def Fuser_AddOp : Fuser_BinaryOp<"add", Fuser_NumericTensor, "lhs + rhs",
                                 [Commutative]> {
  let hasFolder = 1;
}
def Fuser_SubOp : Fuser_BinaryOp<"sub", Fuser_NumericTensor, "lhs - rhs"> {
  let hasFolder = 1;
}
def Fuser_MulOp : Fuser_BinaryOp<"mul", Fuser_NumericTensor, "lhs * rhs",
                                 [Commutative]> {
  let hasFolder = 1;
}
def Fuser_DivOp : Fuser_Op<"div", [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "division, as torch.div";
  let description = [{
    `torch.div(lhs, rhs, rounding_mode=...)`. On floats, `rounding_mode` is
    `none` (true division, the default), `trunc` or `floor`. Integers need
    `trunc` or `floor` (cast to a float type for true division). Integer
    division by zero gives 0 and `INT_MIN / -1` gives `INT_MIN` (PyTorch
    raises or is undefined there; a kernel cannot raise).

    ```mlir
    %q = fuser.div %a, %b rounding_mode = floor : tensor<16xi32>
    ```
  }];
  let arguments = (ins Fuser_NumericTensor:$lhs, Fuser_NumericTensor:$rhs,
      DefaultValuedAttr<Fuser_RoundingModeAttr,
                        "::mlir::fuser::RoundingMode::none">:$rounding_mode);
  let results = (outs Fuser_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`rounding_mode` `=` `` $rounding_mode^)? attr-dict `:`
    custom<ElementwiseTypes>(type($lhs), type($rhs))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}
def Fuser_PowOp : Fuser_BinaryOp<"pow", Fuser_NumericTensor,
    "lhs raised to rhs; on integers a negative exponent gives 0 unless lhs is 1 or -1">;
def Fuser_MaximumOp : Fuser_BinaryOp<"maximum", Fuser_Tensor,
    "larger of lhs and rhs; NaN if either is NaN", [Commutative]> {
  let hasFolder = 1;
}
def Fuser_MinimumOp : Fuser_BinaryOp<"minimum", Fuser_Tensor,
    "smaller of lhs and rhs; NaN if either is NaN", [Commutative]> {
  let hasFolder = 1;
}
def Fuser_RemainderOp : Fuser_BinaryOp<"remainder", Fuser_NumericTensor,
    "lhs - floor(lhs / rhs) * rhs, with the sign of rhs; integer remainder by zero gives 0">;
def Fuser_FmodOp : Fuser_BinaryOp<"fmod", Fuser_NumericTensor,
    "lhs - trunc(lhs / rhs) * rhs, exactly, with the sign of lhs (C's fmod); "
    "NaN for a zero rhs or an infinite lhs; integer fmod by zero gives 0">;
def Fuser_Atan2Op : Fuser_BinaryOp<"atan2", Fuser_FloatTensor,
    "angle of the point (rhs, lhs)">;

def Fuser_EqOp : Fuser_CompareOp<"eq", "lhs == rhs">;
def Fuser_NeOp : Fuser_CompareOp<"ne", "lhs != rhs">;
def Fuser_LtOp : Fuser_CompareOp<"lt", "lhs < rhs">;
def Fuser_LeOp : Fuser_CompareOp<"le", "lhs <= rhs">;
def Fuser_GtOp : Fuser_CompareOp<"gt", "lhs > rhs">;
def Fuser_GeOp : Fuser_CompareOp<"ge", "lhs >= rhs">;

def Fuser_AndOp : Fuser_BinaryOp<"and", Fuser_IntTensor, "bitwise and", [Commutative]>;
def Fuser_OrOp : Fuser_BinaryOp<"or", Fuser_IntTensor, "bitwise or", [Commutative]>;
def Fuser_XorOp : Fuser_BinaryOp<"xor", Fuser_IntTensor, "bitwise xor", [Commutative]>;
def Fuser_ShlOp : Fuser_BinaryOp<"shl", Fuser_SignedTensor,
    "lhs shifted left by rhs bits (torch.bitwise_left_shift); a shift below 0 "
    "or of the width or more gives 0">;
def Fuser_ShrOp : Fuser_BinaryOp<"shr", Fuser_SignedTensor,
    "lhs shifted right by rhs bits, the sign copied in (torch.bitwise_right_shift); "
    "a shift below 0 or of the width or more gives 0 or -1 by the sign">;

//===----------------------------------------------------------------------===//
// Ternary ops
//===----------------------------------------------------------------------===//

class Fuser_TernaryOp<string mnemonic>
    : Fuser_Op<mnemonic, [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let results = (outs Fuser_Tensor:$result);
}

def Fuser_WhereOp : Fuser_TernaryOp<"where"> {
  let summary = "select, as torch.where";
  let description = [{
    `condition ? lhs : rhs` elementwise. `lhs` and `rhs` share an element type;
    all three shapes match or have rank 0.

    ```mlir
    %0 = fuser.where %c, %a, %b : tensor<8xi1>, tensor<8xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Fuser_BoolTensor:$condition, Fuser_Tensor:$lhs, Fuser_Tensor:$rhs);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:`
    custom<ElementwiseTypes>(type($condition), type($lhs), type($rhs))
  }];
}

def Fuser_ClampOp : Fuser_TernaryOp<"clamp"> {
  let summary = "clamp, as torch.clamp";
  let description = [{
    `min(max(input, low), high)`: a NaN input stays NaN, and a NaN bound gives NaN.

    ```mlir
    %0 = fuser.clamp %x, %lo, %hi : tensor<8xf32>, tensor<f32>, tensor<f32>
    ```
  }];
  let arguments = (ins Fuser_NumericTensor:$input, Fuser_NumericTensor:$low,
                       Fuser_NumericTensor:$high);
  let assemblyFormat = [{
    $input `,` $low `,` $high attr-dict `:`
    custom<ElementwiseTypes>(type($input), type($low), type($high))
  }];
}

def Fuser_LerpOp : Fuser_TernaryOp<"lerp"> {
  let summary = "linear interpolation, as torch.lerp";
  let description = [{
    `start + weight * (end - start)`, computed as PyTorch's CPU vector
    and CUDA kernels do, each with one rounding after the difference:
    `fma(weight, end - start, start)` when `|weight| < 0.5`, else
    `fma(weight - 1, end - start, end)`.

    ```mlir
    %0 = fuser.lerp %a, %b, %w : tensor<8xf32>, tensor<8xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$start, Fuser_FloatTensor:$end,
                       Fuser_FloatTensor:$weight);
  let assemblyFormat = [{
    $start `,` $end `,` $weight attr-dict `:`
    custom<ElementwiseTypes>(type($start), type($end), type($weight))
  }];
}

def Fuser_FmaOp : Fuser_TernaryOp<"fma"> {
  let summary = "fused multiply-add";
  let description = [{
    `a * b + c` with one rounding on floats (wrapping on integers).

    ```mlir
    %0 = fuser.fma %a, %b, %c : tensor<8xf32>
    ```
  }];
  let arguments = (ins Fuser_NumericTensor:$a, Fuser_NumericTensor:$b,
                       Fuser_NumericTensor:$c);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` custom<ElementwiseTypes>(type($a), type($b), type($c))
  }];
}

//===----------------------------------------------------------------------===//
// Cast, constant, iota
//===----------------------------------------------------------------------===//

def Fuser_CastOp : Fuser_Op<"cast", [Pure]> {
  let summary = "element type conversion, as Tensor.to(dtype)";
  let description = [{
    Converts every element to the result's element type; the shape stays.
    Float to integer truncates toward zero and saturates at the integer range
    (NaN gives 0); narrowing float casts round to nearest even; casting to i1
    gives `x != 0`; integer narrowing wraps.

    To an fp8 type (f8E4M3FN, f8E5M2) the value goes through f32, as
    PyTorch's `.to(torch.float8_*)` does, and rounds to nearest even. A value
    beyond the largest finite one becomes what the format defines: NaN in
    f8E4M3FN (it has no infinity), infinity in f8E5M2. With `saturate` it
    becomes the largest finite value of its sign instead (infinities too);
    NaN stays NaN either way. From fp8 every conversion is exact up to the
    target's own rounding (docs/fp8.md).

    ```mlir
    %0 = fuser.cast %x : tensor<8x?xbf16> to tensor<8x?xf32>
    %1 = fuser.cast %y saturate : tensor<8x?xf32> to tensor<8x?xf8E4M3FN>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input, UnitAttr:$saturate);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $input (`saturate` $saturate^)? attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuser_BitcastOp : Fuser_Op<"bitcast", [Pure]> {
  let summary = "each element's bits read as another type of their width, as Tensor.view(dtype)";
  let description = [{
    Reinterprets the bits of every element: f32 and i32, f64 and i64, f16
    and bf16, an fp8 type and i8 (or the other fp8 type) pair up; the shape
    stays. No value is converted (see `fuser.cast` for that): the bit
    patterns of floats, NaN payloads included, move as they are. i1 has no
    bit pattern to reinterpret.

    ```mlir
    %bits = fuser.bitcast %amax : tensor<64x1xf32> to tensor<64x1xi32>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuser_ConstantOp : Fuser_Op<"constant", [Pure, ConstantLike]> {
  let summary = "a tensor filled with one value";
  let description = [{
    A splat: every element holds `value`, whose type is the element type.
    Dynamic dims take their size from the tensors the constant combines with.

    ```mlir
    %eps = fuser.constant 1.0e-05 : tensor<f32>
    %ones = fuser.constant 1 : tensor<4x8xi32>
    %t = fuser.constant true : tensor<4xi1>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Fuser_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuser_IotaOp : Fuser_Op<"iota", [Pure]> {
  let summary = "indices along one dim";
  let description = [{
    Every element holds its index along `dim`, as `torch.arange` broadcast
    along the other dims.

    ```mlir
    %0 = fuser.iota dim = 1 : tensor<4x8xi64>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Fuser_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fuser_SizeOp : Fuser_Op<"size", [Pure]> {
  let summary = "a dim's extent, as a scalar";
  let description = [{
    The extent of `dim` of `input`, as a rank-0 tensor of the result's
    integer or float type (`x.shape[dim]`, `x.size(dim)`): backward formulas
    written against dynamic shapes (`1 / N`, `N - 1` for an unbiased
    variance) compile once for every size. Reads no element of `input`.
    Floats round to nearest even (exact up to 2^24 in f32, 2^11 in f16, 2^8
    in bf16); `i32` holds extents below 2^31 (checked when the fusion runs
    where the extent is dynamic). A static extent folds to a constant.

    ```mlir
    %n = fuser.size %x dim = 1 : tensor<?x?xbf16> -> tensor<f32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, I64Attr:$dim);
  let results = (outs 0DTensorOf<[I8, I32, I64, F16, BF16, F32, F64]>:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Broadcast
//===----------------------------------------------------------------------===//

def Fuser_BroadcastOp : Fuser_Op<"broadcast", [Pure]> {
  let summary = "broadcast into a larger shape (StableHLO broadcast_in_dim)";
  let description = [{
    `dims[i]` is the result dim that operand dim `i` maps to; `dims` is
    strictly increasing (use `fuser.permute` to reorder). A mapped operand dim
    either equals its result dim or is statically 1 and expands. Result dims
    not in `dims` are new.

    ```mlir
    %0 = fuser.broadcast %bias dims = [1] : tensor<1024xf32> -> tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Ops whose syntax spells the result type verify it against the type their
// operands imply (with a precise message), and have a builder that infers it.
class Fuser_ReductionOp<string mnemonic, Type inType, string desc>
    : Fuser_Op<mnemonic, [Pure]> {
  let summary = desc;
  let description = "`torch." # mnemonic # "` over `dims` (unique, in range, "
      "any order); with `keepdim = true` the reduced dims stay as size 1. " #
      desc # ". f16 and bf16 accumulate in f32.";
  let arguments = (ins inType:$input, DenseI64ArrayAttr:$dims,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`keepdim` `=` $keepdim^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  // Over dims that are all of static size 1: a reshape (index arithmetic,
  // never a kernel of its own).
  let hasCanonicalizer = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$dims,
                   CArg<"bool", "false">:$keepdim), [{
      build($_builder, $_state,
            *inferResultType(std::nullopt, ::llvm::cast<::mlir::RankedTensorType>(
                input.getType()), dims, keepdim),
            input, dims, keepdim);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The result type for `input` reduced over `dims`, or a diagnostic at
    /// `loc` saying why there is none.
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc,
                    ::mlir::RankedTensorType input,
                    ::llvm::ArrayRef<int64_t> dims, bool keepdim);
  }];
}

def Fuser_SumOp : Fuser_ReductionOp<"sum", Fuser_SummableTensor,
    "sum; 0 over an empty dim; integers wrap in their own type">;
def Fuser_ProdOp : Fuser_ReductionOp<"prod", Fuser_SummableTensor,
    "product; 1 over an empty dim">;
def Fuser_MaxOp : Fuser_ReductionOp<"max", Fuser_Tensor,
    "maximum; NaN if any element is NaN; the lowest value over an empty dim">;
def Fuser_MinOp : Fuser_ReductionOp<"min", Fuser_Tensor,
    "minimum; NaN if any element is NaN; the highest value over an empty dim">;
def Fuser_MeanOp : Fuser_ReductionOp<"mean", Fuser_FloatTensor,
    "arithmetic mean; NaN over an empty dim">;
def Fuser_AnyOp : Fuser_ReductionOp<"any", Fuser_Tensor,
    "true if any element is nonzero (i1 result); false over an empty dim">;
def Fuser_AllOp : Fuser_ReductionOp<"all", Fuser_Tensor,
    "true if every element is nonzero (i1 result); true over an empty dim">;

def Fuser_VarMeanOp : Fuser_Op<"var_mean", [Pure]> {
  let summary = "variance and mean, as torch.var_mean";
  let description = [{
    Variance (divided by `N - correction`) and mean over `dims`. Computed with
    Welford's algorithm, stable when the mean is large against the spread.
    `correction` (default 1) and `keepdim` (default false) may come in
    either order.

    ```mlir
    %var, %mean = fuser.var_mean %x dims = [1] correction = 0
        : tensor<8x1024xf32> -> tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       DefaultValuedAttr<I64Attr, "1">:$correction,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Fuser_FloatTensor:$var, Fuser_FloatTensor:$mean);
  let assemblyFormat = [{
    $input `dims` `=` $dims
    oilist(`correction` `=` $correction | `keepdim` `=` $keepdim)
    attr-dict `:` type($input) `->` type($var) `,` type($mean)
  }];
  let hasVerifier = 1;
  // With keepdim, reduced dims of static size 1 beside others drop out of
  // `dims` (as for the other reductions).
  let hasCanonicalizer = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$dims,
                   "int64_t":$correction, CArg<"bool", "false">:$keepdim), [{
      ::mlir::RankedTensorType t = *SumOp::inferResultType(std::nullopt,
          ::llvm::cast<::mlir::RankedTensorType>(input.getType()), dims, keepdim);
      build($_builder, $_state, t, t, input, dims, correction, keepdim);
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Fuser_ReshapeOp : Fuser_Op<"reshape", [Pure]> {
  let summary = "same elements in row-major order, another shape";
  let description = [{
    As `torch.reshape` of a contiguous tensor. Static element counts must
    match; dynamic ones are checked when the fusion runs.

    ```mlir
    %0 = fuser.reshape %x : tensor<8x16xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Fuser_PermuteOp : Fuser_Op<"permute", [Pure]> {
  let summary = "reorder dims, as torch.permute";
  let description = [{
    Result dim `i` is operand dim `perm[i]`.

    ```mlir
    %0 = fuser.permute %x perm = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$perm), [{
      build($_builder, $_state, *inferResultType(std::nullopt,
            ::llvm::cast<::mlir::RankedTensorType>(input.getType()), perm),
            input, perm);
    }]>
  ];
  let extraClassDeclaration = [{
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc,
                    ::mlir::RankedTensorType input, ::llvm::ArrayRef<int64_t> perm);
  }];
}

def Fuser_SliceOp : Fuser_Op<"slice", [Pure]> {
  let summary = "strided slice, as x[start:limit:step] per dim";
  let description = [{
    Result dim `i` has `ceil((limit[i] - start[i]) / step[i])` elements taken
    from `start[i]` every `step[i]`. `0 <= start <= limit <= size`, `step >= 1`;
    against dynamic sizes `limit` is checked when the fusion runs. A limit of
    9223372036854775807 (INT64_MAX, ATen's default end) means the end of the
    dim: on a dynamic dim the result dim is dynamic, `ceil((size - start) /
    step)`, and `start <= size` is checked when the fusion runs (`x[:, :4]` of
    a `tensor<?x8xf32>` is `start = [0, 0] limit = [9223372036854775807, 4]`).

    ```mlir
    %0 = fuser.slice %x start = [0, 1] limit = [4, 8] step = [1, 2]
           : tensor<4x8xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$step);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $input `start` `=` $start `limit` `=` $limit `step` `=` $step attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$start,
                   "::llvm::ArrayRef<int64_t>":$limit, "::llvm::ArrayRef<int64_t>":$step), [{
      build($_builder, $_state, *inferResultType(std::nullopt,
            ::llvm::cast<::mlir::RankedTensorType>(input.getType()), start, limit, step),
            input, start, limit, step);
    }]>
  ];
  let extraClassDeclaration = [{
    /// A limit that means the end of the dim (ATen's default end).
    static constexpr int64_t kToEnd = INT64_MAX;
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc,
                    ::mlir::RankedTensorType input, ::llvm::ArrayRef<int64_t> start,
                    ::llvm::ArrayRef<int64_t> limit, ::llvm::ArrayRef<int64_t> step);
  }];
}

def Fuser_PadOp : Fuser_Op<"pad", [Pure]> {
  let summary = "constant padding, as torch.nn.functional.pad";
  let description = [{
    Adds `low[i]` elements before and `high[i]` after dim `i`, filled with
    the rank-0 `value`. A negative amount crops that many elements from its
    end instead, as torch.nn.functional.pad does; a dim must hold what its
    two ends crop (checked when the fusion runs against dynamic sizes).

    ```mlir
    %0 = fuser.pad %x, %zero low = [0, 1] high = [0, 2]
           : tensor<4x8xf32>, tensor<f32> -> tensor<4x11xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, Fuser_Tensor:$value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $value `low` `=` $low `high` `=` $high attr-dict `:`
    type($input) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$value,
                   "::llvm::ArrayRef<int64_t>":$low, "::llvm::ArrayRef<int64_t>":$high), [{
      build($_builder, $_state, *inferResultType(std::nullopt,
            ::llvm::cast<::mlir::RankedTensorType>(input.getType()),
            ::llvm::cast<::mlir::RankedTensorType>(value.getType()), low, high),
            input, value, low, high);
    }]>
  ];
  let extraClassDeclaration = [{
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc,
                    ::mlir::RankedTensorType input, ::mlir::RankedTensorType value,
                    ::llvm::ArrayRef<int64_t> low, ::llvm::ArrayRef<int64_t> high);
  }];
}

def Fuser_ConcatOp : Fuser_Op<"concat", [Pure]> {
  let summary = "join along one dim, as torch.cat";
  let description = [{
    Operands share element type, rank and every size but the one along `dim`.

    ```mlir
    %0 = fuser.concat %a, %b dim = 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Fuser_StorageTensor>:$inputs, I64Attr:$dim);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$inputs, "int64_t":$dim), [{
      build($_builder, $_state,
            *inferResultType(std::nullopt, inputs.getTypes(), dim), inputs, dim);
    }]>
  ];
  let extraClassDeclaration = [{
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc, ::mlir::TypeRange inputs,
                    int64_t dim);
  }];
}

//===----------------------------------------------------------------------===//
// Indexing: reads at positions computed from data
//===----------------------------------------------------------------------===//

def Fuser_GatherOp : Fuser_Op<"gather", [Pure]> {
  let summary = "values picked along one dim by an index tensor, as torch.gather";
  let description = [{
    `result[i_0, ..., i_n] = input[i_0, ..., index[i_0, ..., i_n], ..., i_n]`,
    the index replacing position `dim`. The result has the index's shape and
    the input's element type; index and input have the same rank, and every
    dim of the index but `dim` is at most the input's (checked when the
    fusion runs against dynamic sizes). Index values must lie in
    `[0, input.size(dim))` (PyTorch rejects negative ones too). An index
    outside it reads nothing: the element is 0 and the call fails with the
    fusion, this op and the index value (docs/runtime.md, "Index errors").

    ```mlir
    %0 = fuser.gather %x, %idx dim = 1 : tensor<4x10xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input, RankedTensorOf<[I32, I64]>:$index, I64Attr:$dim);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` `=` $dim attr-dict `:` type($input) `,` type($index) `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$index, "int64_t":$dim), [{
      build($_builder, $_state, *inferResultType(std::nullopt,
            ::llvm::cast<::mlir::RankedTensorType>(input.getType()),
            ::llvm::cast<::mlir::RankedTensorType>(index.getType()), dim),
            input, index, dim);
    }]>
  ];
  let extraClassDeclaration = [{
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc, ::mlir::RankedTensorType input,
                    ::mlir::RankedTensorType index, int64_t dim);
  }];
}

def Fuser_IndexSelectOp : Fuser_Op<"index_select", [Pure]> {
  let summary = "slices picked along one dim by a 1-D index, as torch.index_select";
  let description = [{
    `result[..., k, ...] = input[..., index[k], ...]` with `k` at position
    `dim`: the input's shape with `index.size(0)` at `dim` (an embedding
    lookup is `index_select(table, 0, ids)`). Index values must lie in
    `[0, input.size(dim))`; one outside reads nothing, the elements it
    picks are 0 and the call fails with the fusion, this op and the value
    (docs/runtime.md, "Index errors").

    ```mlir
    %0 = fuser.index_select %table, %ids dim = 0
           : tensor<32000x512xbf16>, tensor<8xi32> -> tensor<8x512xbf16>
    ```
  }];
  let arguments = (ins Fuser_StorageTensor:$input, 1DTensorOf<[I32, I64]>:$index, I64Attr:$dim);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` `=` $dim attr-dict `:` type($input) `,` type($index) `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$index, "int64_t":$dim), [{
      build($_builder, $_state, *inferResultType(std::nullopt,
            ::llvm::cast<::mlir::RankedTensorType>(input.getType()),
            ::llvm::cast<::mlir::RankedTensorType>(index.getType()), dim),
            input, index, dim);
    }]>
  ];
  let extraClassDeclaration = [{
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc, ::mlir::RankedTensorType input,
                    ::mlir::RankedTensorType index, int64_t dim);
  }];
}

class Fuser_ScatterOp<string mnemonic, string summaryText>
    : Fuser_Op<mnemonic, [Pure, AllTypesMatch<["self", "result"]>]> {
  let summary = summaryText;
  let arguments = (ins Fuser_NumericTensor:$self, RankedTensorOf<[I32, I64]>:$index,
                       Fuser_NumericTensor:$source, I64Attr:$dim);
  let results = (outs Fuser_NumericTensor:$result);
  let assemblyFormat = [{
    $self `,` $index `,` $source `dim` `=` $dim attr-dict `:` type($self) `,` type($index) `,`
    type($source)
  }];
  let hasVerifier = 1;
}

def Fuser_ScatterAddOp : Fuser_ScatterOp<"scatter_add",
    "source elements added into self at positions an index tensor picks, as torch.scatter_add"> {
  let description = [{
    `result = self`, then for every position `p` of `index`, in row-major
    order, `result[p with p[dim] := index[p]] += source[p]`. Index, source
    and self have the same rank; every dim of the index is at most the
    source's, and every dim but `dim` at most self's (checked when the
    fusion runs against dynamic sizes). Index values must lie in
    `[0, self.size(dim))`; one outside adds nothing and the call fails
    naming this op, the value and its position in the index
    (docs/runtime.md, "Index errors").

    Deterministic and exactly PyTorch's CPU result: each element adds its
    contributions in that order, in the element type, rounding after every
    addition (16-bit floats through f32, as c10::Half does); integers wrap.
    Each result element reads the index along its line, so the cost grows
    with `self.size(dim) * index.size(dim)` per line (docs/schedulers.md,
    "Scatters").

    ```mlir
    %0 = fuser.scatter_add %x, %idx, %src dim = 1
           : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x3xf32>
    ```
  }];
}

def Fuser_IndexAddOp : Fuser_ScatterOp<"index_add",
    "slices of source added into self at positions a 1-D index picks, as torch.index_add"> {
  let description = [{
    `result = self`, then for `k = 0, 1, ...`: `result[..., index[k], ...] +=
    source[..., k, ...]`, positions at `dim`. The source has self's shape
    but `index.size(0)` at `dim` (an embedding's gradient is
    `index_add(zeros, 0, ids, grad)`); `alpha` is a `fuser.mul` of the
    source before it. Index values must lie in `[0, self.size(dim))`; one
    outside adds nothing and the call fails naming this op and the value.
    The order and rounding are those of `fuser.scatter_add`. An index of
    more than 32 positions (or of a length known only at launch) is read
    once per tile of result rows rather than once per element
    (docs/schedulers.md, "index_add by tiles of rows").

    ```mlir
    %0 = fuser.index_add %table, %ids, %grad dim = 0
           : tensor<1000x64xf32>, tensor<8xi32>, tensor<8x64xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

class Fuser_ScanOp<string mnemonic, string what, string torchOp>
    : Fuser_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "running " # what # " along one dim, as torch." # torchOp;
  let description = [{
    Element `j` along `dim` combines the input's elements `0 .. j` along
    it. Floats of 16 bits accumulate in f32 and round each result once;
    f32, f64 and i64 accumulate in their own type (i64 wraps). PyTorch's
    result for a narrower integer or a bool is int64: cast to i64 first.
    The order of the operations is documented in docs/schedulers.md
    ("Scans").

    ```mlir
    %0 = fuser.cumsum %x dim = 1 : tensor<8x1000xf32>
    %1 = fuser.cumprod %x dim = 0 : tensor<8x1000xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, I64Attr:$dim);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
  // Along a dim of static size 1: the input (a cumsum of floats adds +0.0,
  // as PyTorch's does), never a kernel of its own.
  let hasCanonicalizer = 1;
}

def Fuser_CumsumOp : Fuser_ScanOp<"cumsum", "sum", "cumsum">;
def Fuser_CumprodOp : Fuser_ScanOp<"cumprod", "product", "cumprod">;

class Fuser_ScanExtremumOp<string mnemonic, string what, string cmp>
    : Fuser_Op<mnemonic, [Pure, AllTypesMatch<["input", "values"]>]> {
  let summary = "running " # what # " along one dim and where it is, as torch." # mnemonic;
  let description = [{
    Element `j` of `values` is the }] # what # [{ of the input's elements
    `0 .. j` along `dim`, and element `j` of `indices` (i64) the position
    along `dim` it was taken from. As PyTorch: a tie goes to the later
    position (element `j` replaces the running value when `x[j] }] # cmp #
    [{ value`), and a NaN, once seen, is the value from then on, its
    position that of the latest NaN. Every element type; bools compare
    false < true, integers as signed. No arithmetic: the values are the
    input's own, bit for bit (so -0.0 and 0.0 tie, and the later is kept).

    ```mlir
    %v, %i = fuser.}] # mnemonic # [{ %x dim = 1 : tensor<8x1000xf32> -> tensor<8x1000xi64>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, I64Attr:$dim);
  let results = (outs Fuser_Tensor:$values, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = [{
    $input `dim` `=` $dim attr-dict `:` type($input) `->` type($indices)
  }];
  let hasVerifier = 1;
  // Along a dim of static size 1 (of a static shape): the input and
  // indices 0, never a kernel of its own.
  let hasCanonicalizer = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "int64_t":$dim), [{
      auto t = ::llvm::cast<::mlir::RankedTensorType>(input.getType());
      build($_builder, $_state, t, t.clone($_builder.getI64Type()), input, dim);
    }]>
  ];
}

def Fuser_CummaxOp : Fuser_ScanExtremumOp<"cummax", "maximum", ">=">;
def Fuser_CumminOp : Fuser_ScanExtremumOp<"cummin", "minimum", "<=">;

//===----------------------------------------------------------------------===//
// Composites, expanded by fuser-decompose
//===----------------------------------------------------------------------===//

def Fuser_SoftmaxOp : Fuser_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along one dim";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `dim`; f16/bf16 compute in f32.
    Expanded into primitive ops by `fuser-decompose`.

    ```mlir
    %0 = fuser.softmax %x dim = 1 : tensor<8x1024xbf16>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Fuser_LogSoftmaxOp : Fuser_Op<"log_softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "log of softmax along one dim";
  let description = [{
    `x - max - log(sum(exp(x - max)))` along `dim`; f16/bf16 compute in f32.
    Expanded into primitive ops by `fuser-decompose`.

    ```mlir
    %0 = fuser.log_softmax %x dim = 1 : tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Fuser_LayerNormOp : Fuser_Op<"layer_norm", [Pure, AttrSizedOperandSegments]> {
  let summary = "layer normalization over trailing dims";
  let description = [{
    As `torch.native_layer_norm`: `dims` are the trailing dims normalized,
    `weight` and `bias` (optional, of those dims' shape) scale and shift.
    Results: the output, and the mean and reciprocal standard deviation with
    the normalized dims kept as size 1 (f32 for f16/bf16 input, else the input
    type). Biased variance; f16/bf16 compute in f32.

    ```mlir
    %y, %mean, %rstd = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
        : (tensor<8x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
        -> (tensor<8x1024xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input,
                       Optional<Fuser_FloatTensor>:$weight,
                       Optional<Fuser_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$dims, F64Attr:$eps);
  let results = (outs Fuser_FloatTensor:$result, Fuser_FloatTensor:$mean,
                      Fuser_FloatTensor:$rstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `dims` `=` $dims `eps` `=` $eps
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Fuser_RmsNormOp : Fuser_Op<"rms_norm", [Pure]> {
  let summary = "root-mean-square normalization over trailing dims";
  let description = [{
    As `torch.nn.functional.rms_norm`: `x * rsqrt(mean(x^2 over dims) + eps)`,
    times `weight` when given; f16/bf16 compute in f32, the weight product
    included, and round once (as PyTorch's fused rms_norm).

    ```mlir
    %0 = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06
        : (tensor<8x1024xf32>, tensor<1024xf32>) -> tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, Optional<Fuser_FloatTensor>:$weight,
                       DenseI64ArrayAttr:$dims, F64Attr:$eps);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? `dims` `=` $dims `eps` `=` $eps
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Fuser_ScaledCastOp : Fuser_Op<"scaled_cast", [Pure]> {
  let summary = "fp8 cast by a given scale, and the amax for the next one";
  let description = [{
    Delayed scaling (Transformer Engine's recipe): `result = cast(x * scale)
    saturate` to f8E4M3FN or f8E5M2, and `amax = max(|x|)` over the elements
    that share a scale, which a training loop keeps to choose the next
    step's scale. `x` becomes f32 first (as torchao's
    `x.to(torch.float32) * scale`). `scale` is f32: rank 0 (one scale for the
    tensor), or of `x`'s rank with each dim 1 (shared) or `x`'s size (per
    row, per column, per channel); `amax` has `scale`'s shape. NaN in `x`
    makes its amax NaN, as `torch.amax` does. Expanded into primitive ops by
    `fuser-decompose` (docs/fp8.md).

    ```mlir
    %q, %amax = fuser.scaled_cast %x, %scale
        : (tensor<?x4096xbf16>, tensor<f32>) -> (tensor<?x4096xf8E4M3FN>, tensor<f32>)
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, Fuser_F32Tensor:$scale);
  let results = (outs Fuser_Fp8DataTensor:$result, Fuser_F32Tensor:$amax);
  let assemblyFormat = [{
    $input `,` $scale attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Fuser_QuantizeOp : Fuser_Op<"quantize", [Pure]> {
  let summary = "fp8 quantization with scales from the data (current scaling)";
  let description = [{
    Quantizes `x` to f8E4M3FN or f8E5M2 with one scale per group of
    elements, chosen from the group's `amax = max(|x|)`. Groups:
    `tensor` (results `scale` and `amax` of rank 0), `row` (every dim but the
    last kept, the last 1: `[..., 1]`), or `block N` (N contiguous elements
    of a row: `[..., H / N]`; H static and a multiple of N, e.g. 32 for MX,
    128 for DeepSeek-V3's 1x128 tiles). `x` becomes f32 first. The element
    type of `scale` picks the recipe:

    - **f32** (torchao's Float8 training, tensorwise and rowwise):
      `scale = fmax / max(amax, 1e-12)` computed in f64 and rounded to f32,
      `result = cast(x * scale) saturate`; `fmax` is 448 (e4m3) or 57344
      (e5m2). Dequantize with `result / scale`.
    - **f8E8M0FNU** (OCP Microscaling v1.0): the shared exponent
      `e = floor(log2(amax)) - emax` (emax 8 for e4m3, 15 for e5m2), clamped
      to [-127, 127], taken from amax's exponent bits; `result = cast(x *
      2^-e) saturate` (exact scaling); `scale` is 2^e as e8m0 (NaN, 0xff,
      where amax is NaN). Dequantize with `result * scale`.

    `amax` is f32, of `scale`'s shape. Expanded into primitive ops by
    `fuser-decompose`, so it fuses with what computes `x` (docs/fp8.md).

    ```mlir
    %q, %s, %amax = fuser.quantize %y row
        : tensor<?x4096xbf16> -> (tensor<?x4096xf8E4M3FN>, tensor<?x1xf32>, tensor<?x1xf32>)
    %m, %e, %a = fuser.quantize %y block 32
        : tensor<?x4096xbf16> -> (tensor<?x4096xf8E4M3FN>, tensor<?x128xf8E8M0FNU>, tensor<?x128xf32>)
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, Fuser_QuantGranularity:$granularity,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs Fuser_Fp8DataTensor:$result, Fuser_Fp8ScaleTensor:$scale,
                      Fuser_F32Tensor:$amax);
  let assemblyFormat = [{
    $input $granularity ($block_size^)? attr-dict `:` type($input) `->`
    `(` type($result) `,` type($scale) `,` type($amax) `)`
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Random numbers (docs/random.md)
//===----------------------------------------------------------------------===//

// Seeds and offsets: rank-0 i64 tensors, printed without their type.
def Fuser_I64Scalar : 0DTensorOf<[I64]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getI64Type())";
}

class Fuser_RandomOp<string mnemonic, Type resultType>
    : Fuser_Op<mnemonic, [Pure]> {
  let arguments = (ins Fuser_I64Scalar:$seed, Fuser_I64Scalar:$offset,
                       Optional<Fuser_Tensor>:$like);
  let results = (outs resultType:$result);
  let assemblyFormat = [{
    $seed `,` $offset (`like` $like^ `:` type($like))? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Fuser_RandOp : Fuser_RandomOp<"rand", RankedTensorOf<[I32, I64, F16, BF16, F32, F64]>> {
  let summary = "uniform random numbers in [0, 1), or raw Philox4x32-10 bits";
  let description = [{
    Element `i` (its row-major index in the result) is a function of
    `(seed, offset, i)` alone, Philox4x32-10 with key `seed` and counter
    `(i / 4, offset)`, whatever the kernel, launch or device computing it
    (docs/random.md has the exact formula). Floats are uniform in [0, 1),
    never 1.0: 24 random bits for f32, 11 for f16, 8 for bf16, 53 for f64
    (which takes two 32-bit words). `i32` and `i64` results are the raw
    words. `seed` and `offset` are ordinary arguments: a training loop
    changes them every step without recompiling. Dynamic sizes come from
    `like` (any tensor of the result's shape) or from the ops the result
    meets.

    ```mlir
    %u = fuser.rand %seed, %offset like %x : tensor<?x1024xbf16> : tensor<?x1024xf32>
    ```
  }];
}

def Fuser_RandnOp : Fuser_RandomOp<"randn", Fuser_FloatTensor> {
  let summary = "standard normal random numbers (Box-Muller over Philox)";
  let description = [{
    As `fuser.rand`, with each pair of elements `2j, 2j + 1` from the
    Box-Muller transform of two uniforms: `sqrt(-2 log u1) * cos(2 pi u2)`
    and `sqrt(-2 log u1) * sin(2 pi u2)`, computed in f32 (f64 for f64) with
    fuser's math (docs/random.md).

    ```mlir
    %z = fuser.randn %seed, %offset : tensor<4096xf32>
    ```
  }];
}

def Fuser_BernoulliOp : Fuser_Op<"bernoulli", [Pure, AllTypesMatch<["p", "result"]>]> {
  let summary = "1 with probability p, else 0";
  let description = [{
    As `torch.bernoulli(p)`: element `i` is 1 where the uniform number of
    `fuser.rand` of the same seed, offset and index (f32's for f16, bf16 and
    f32 probabilities, f64's for f64) is below `p[i]`, else 0, in `p`'s type.
    Broadcast `p` first for a scalar probability. A constant `p` (or a
    broadcast of one) outside [0, 1], or NaN, is a verifier error, as
    torch.bernoulli raises.

    ```mlir
    %b = fuser.bernoulli %p, %seed, %offset : tensor<8x128xf32>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$p, Fuser_I64Scalar:$seed,
                       Fuser_I64Scalar:$offset);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = "$p `,` $seed `,` $offset attr-dict `:` type($p)";
  let hasVerifier = 1;
}

def Fuser_DropoutOp : Fuser_Op<"dropout", [Pure]> {
  let summary = "dropout: zero elements with probability p, scale the rest";
  let description = [{
    As `torch.native_dropout(x, p, train=True)`: `mask = u < 1 - p` with the
    uniform `u` of `fuser.rand` (f32) at each element's index,
    `y = x * mask * scale` with `scale = 1 / (1 - p)` (0 when `p` is 1),
    computed in f32 for f16/bf16 (f64 for f64) and rounded once. `p` is a
    rank-0 float tensor: a constant outside [0, 1] is a verifier error.
    Expanded into primitive ops by `fuser-decompose`; regenerating the mask
    from the same seed and offset gives the same mask (the backward pass
    need not store it).

    ```mlir
    %y, %mask = fuser.dropout %x, %p, %seed, %offset
        : tensor<8x1024xbf16>, tensor<f32> -> tensor<8x1024xbf16>, tensor<8x1024xi1>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, Fuser_FloatTensor:$p,
                       Fuser_I64Scalar:$seed, Fuser_I64Scalar:$offset);
  let results = (outs Fuser_FloatTensor:$result, Fuser_BoolTensor:$mask);
  let assemblyFormat = [{
    $input `,` $p `,` $seed `,` $offset attr-dict `:` type($input) `,` type($p)
    `->` type($result) `,` type($mask)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiplication (library calls: cuBLASLt on a GPU; docs/matmul.md)
//===----------------------------------------------------------------------===//

def Fuser_MatmulOp : Fuser_Op<"matmul", [Pure]> {
  let summary = "matrix product with torch.matmul's semantics";
  let description = [{
    As `torch.matmul`: 1-D by 1-D is a dot product (rank 0); 2-D by 2-D a
    matrix product; a 1-D operand is a row vector on the left, a column
    vector on the right, and its dim is dropped from the result; beyond 2-D
    the leading dims are batch dims, broadcast as PyTorch does (a batch dim
    of size 1 in the type broadcasts; sizes known only at launch must be
    equal). Both operands have one float type, also the result's; the
    products accumulate in f32 (f64 for f64) and round once.

    The op is a library call (cuBLASLt): it is a kernel boundary, and its
    operands are read from memory (docs/matmul.md).

    ```mlir
    %0 = fuser.matmul %a, %b : (tensor<8x?x64xbf16>, tensor<64x128xbf16>)
        -> tensor<8x?x128xbf16>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$lhs, Fuser_FloatTensor:$rhs);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, *inferResultType(std::nullopt,
            ::llvm::cast<::mlir::RankedTensorType>(lhs.getType()),
            ::llvm::cast<::mlir::RankedTensorType>(rhs.getType())), lhs, rhs);
    }]>
  ];
  let extraClassDeclaration = [{
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc, ::mlir::RankedTensorType lhs,
                    ::mlir::RankedTensorType rhs);
  }];
}

def Fuser_LinearOp : Fuser_Op<"linear", [Pure]> {
  let summary = "a linear layer, x @ weight^T + bias, as torch.nn.functional.linear";
  let description = [{
    `input` is `[..., in]` (at least 1-D), `weight` `[out, in]`, the optional
    `bias` `[out]`; the result is `[..., out]` (`[out]` for a 1-D input).
    One float type for all; products accumulate in f32 (f64 for f64), the
    bias is added in that type and the result rounds once, as cuBLASLt's
    bias epilogue does. A library call (docs/matmul.md).

    ```mlir
    %0 = fuser.linear %x, %w bias %b
        : (tensor<?x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>)
        -> tensor<?x4096xbf16>
    ```
  }];
  let arguments = (ins Fuser_FloatTensor:$input, Fuser_FloatTensor:$weight,
                       Optional<Fuser_FloatTensor>:$bias);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$weight, "::mlir::Value":$bias), [{
      build($_builder, $_state, *inferResultType(std::nullopt,
            ::llvm::cast<::mlir::RankedTensorType>(input.getType()),
            ::llvm::cast<::mlir::RankedTensorType>(weight.getType()),
            bias ? std::optional<::mlir::RankedTensorType>(
                       ::llvm::cast<::mlir::RankedTensorType>(bias.getType()))
                 : std::nullopt),
            input, weight, bias);
    }]>
  ];
  let extraClassDeclaration = [{
    static ::mlir::FailureOr<::mlir::RankedTensorType>
    inferResultType(std::optional<::mlir::Location> loc, ::mlir::RankedTensorType input,
                    ::mlir::RankedTensorType weight,
                    std::optional<::mlir::RankedTensorType> bias);
  }];
}

def Fuser_CollectiveOp : Fuser_Op<"collective", [Pure]> {
  let summary = "communication among the devices of a group: all_reduce, all_gather, reduce_scatter, slice, all_to_all";
  let description = [{
    One device's part of a collective among the `group_size` devices that
    `grid_axes` of the fusion's grid (`fuser.grid` on the function) group
    (docs/sharding.md). The parts are along a new leading dim of size
    `group_size`, in the group's member order:

    - `all_reduce` (with `reduction`): the result, of the input's shape, is
      the reduction of every member's input;
    - `all_gather`: the result `[G, ...]` holds every member's input;
    - `reduce_scatter` (with `reduction`): the input is `[G, ...]`; member
      `j`'s result is the reduction of every member's part `j`;
    - `slice`: the input `[G, ...]` is the same on every member; member `j`
      keeps part `j` (no communication);
    - `all_to_all`: input and result `[G, ...]`; member `j` sends its part
      `k` to member `k`, whose result's part `j` it becomes.

    `reduction` is `sum`, `prod`, `max`, `min` or `avg` (the sum divided by
    `G`; floats only); i1 takes `max` (any) and `min` (all); fp8 takes
    none. `fuser-lower-collectives` makes these from the `shard` dialect's
    collectives after partition, with the permutes and reshapes that bring
    a split dim to the front. The op is a library call (NCCL): a segment of
    its own, whose input is read from memory.

    ```mlir
    %g = fuser.collective "all_gather" %x grid_axes = [0] group_size = 4
        : tensor<2x16xf32> -> tensor<4x2x16xf32>
    %s = fuser.collective "all_reduce" %p reduction = "sum" grid_axes = [0]
        group_size = 4 : tensor<16xf32> -> tensor<16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$kind, Fuser_StorageTensor:$input,
                       OptionalAttr<StrAttr>:$reduction,
                       DenseI64ArrayAttr:$grid_axes, I64Attr:$group_size);
  let results = (outs Fuser_StorageTensor:$result);
  let assemblyFormat = [{
    $kind $input (`reduction` `=` $reduction^)? `grid_axes` `=` $grid_axes
    `group_size` `=` $group_size attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

include "fuser/Dialect/Fuser/IR/FuserPlanOps.td"

#endif // FUSER_DIALECT_FUSER_IR_FUSEROPS_TD
