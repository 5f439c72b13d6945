//===- Probability.h - a dropout's or bernoulli's p out of range -*- C++ -*-===//
//
// torch raises for a probability outside [0, 1] (or NaN). fuser refuses a
// constant one: the ops' verifiers check a constant p as written, and
// fuser-check-fusions one that ops fold to a constant (an add of two
// constants), which canonicalization would otherwise hand the verifier
// mid-pipeline. One rule and one message for both.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_PROBABILITY_H
#define FUSER_DIALECT_FUSER_IR_PROBABILITY_H

#include "mlir/IR/Attributes.h"

#include <optional>
#include <string>

namespace mlir::fuser {

/// A value of `constant` (a float, or dense floats) outside [0, 1] or NaN;
/// none for anything else.
std::optional<double> probabilityOutOfRange(Attribute constant);

/// `v` to f32's precision (9 significant digits): 1.0000001 is not "1".
std::string probabilityText(double v);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_PROBABILITY_H
