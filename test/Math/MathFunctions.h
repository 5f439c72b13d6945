//===- MathFunctions.h - The functions the math tests go through -*- C++ -*-===//

#ifndef FUSER_TEST_MATH_MATHFUNCTIONS_H
#define FUSER_TEST_MATH_MATHFUNCTIONS_H

#include "fuser/Math/MathExpansion.h"
#include "mlir/IR/Value.h"

namespace fuser_test {

struct MathFn {
  const char *name;
  int arity;
  mlir::Value (*emit)(mlir::fuser::MathBuilder &, mlir::Value, mlir::Value);
  /// The most ulps allowed (0: the test's bound, 2 unless told): the
  /// functions composed from the core ones (Derived.cpp) have their own.
  double bound = 0;
};

using mlir::Value;
using mlir::fuser::MathBuilder;

// clang-format off
inline constexpr MathFn kMathFunctions[] = {
    {"exp", 1, [](MathBuilder &m, Value a, Value) { return m.exp(a); }},
    {"exp2", 1, [](MathBuilder &m, Value a, Value) { return m.exp2(a); }},
    {"expm1", 1, [](MathBuilder &m, Value a, Value) { return m.expm1(a); }},
    {"log", 1, [](MathBuilder &m, Value a, Value) { return m.log(a); }},
    {"log2", 1, [](MathBuilder &m, Value a, Value) { return m.log2(a); }},
    {"log1p", 1, [](MathBuilder &m, Value a, Value) { return m.log1p(a); }},
    {"sin", 1, [](MathBuilder &m, Value a, Value) { return m.sin(a); }},
    {"cos", 1, [](MathBuilder &m, Value a, Value) { return m.cos(a); }},
    {"tanh", 1, [](MathBuilder &m, Value a, Value) { return m.tanh(a); }},
    {"erf", 1, [](MathBuilder &m, Value a, Value) { return m.erf(a); }},
    {"sigmoid", 1, [](MathBuilder &m, Value a, Value) { return m.sigmoid(a); }},
    {"atan2", 2, [](MathBuilder &m, Value a, Value b) { return m.atan2(a, b); }},
    {"pow", 2, [](MathBuilder &m, Value a, Value b) { return m.pow(a, b); }},
    {"log10", 1, [](MathBuilder &m, Value a, Value) { return m.log10(a); }},
    {"tan", 1, [](MathBuilder &m, Value a, Value) { return m.tan(a); }, 4},
    {"asin", 1, [](MathBuilder &m, Value a, Value) { return m.asin(a); }, 4},
    {"acos", 1, [](MathBuilder &m, Value a, Value) { return m.acos(a); }, 4},
    {"atan", 1, [](MathBuilder &m, Value a, Value) { return m.atan(a); }},
    {"sinh", 1, [](MathBuilder &m, Value a, Value) { return m.sinh(a); }, 4},
    {"cosh", 1, [](MathBuilder &m, Value a, Value) { return m.cosh(a); }, 4},
    {"asinh", 1, [](MathBuilder &m, Value a, Value) { return m.asinh(a); }, 4},
    {"acosh", 1, [](MathBuilder &m, Value a, Value) { return m.acosh(a); }, 4},
    {"atanh", 1, [](MathBuilder &m, Value a, Value) { return m.atanh(a); }, 4},
};
// clang-format on

} // namespace fuser_test

#endif // FUSER_TEST_MATH_MATHFUNCTIONS_H
