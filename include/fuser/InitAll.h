//===- InitAll.h - register fuser and the upstream parts it uses -*- C++ -*-===//
#ifndef FUSER_INITALL_H
#define FUSER_INITALL_H

namespace mlir {
class DialectRegistry;
namespace fuser {

/// Adds the fuser dialect and every upstream dialect (and dialect extension)
/// that fuser's pipeline produces, so that its output can be parsed again.
void registerAllDialects(DialectRegistry &registry);

/// Registers fuser's passes and pipelines and the upstream passes they use,
/// for fuser-opt's command line and for textual pipelines.
void registerAllPasses();

} // namespace fuser
} // namespace mlir

#endif // FUSER_INITALL_H
