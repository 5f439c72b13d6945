//===- InitAll.cpp - register fuser and the upstream parts it uses --------===//

#include "fuser/InitAll.h"

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/Sharding/ShardingInterfaceImpl.h"
#include "fuser/Dialect/Fuser/Sharding/ReshardSteps.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Pipelines/Pipelines.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Transforms/Passes.h"

void mlir::fuser::registerAllDialects(DialectRegistry &registry) {
  registry.insert<FuserDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, memref::MemRefDialect, scf::SCFDialect,
                  vector::VectorDialect, shard::ShardDialect>();
  // Sharded fusions: fuser's ops under upstream's propagation and partition.
  registerShardingInterfaceExternalModels(registry);
  // Lowering to LLVM through dialect interfaces, the NVVM target that
  // serializes gpu.modules to PTX, and the translations it needs.
  registerAllExtensions(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void mlir::fuser::registerAllPasses() {
  registerFuserTransformsPasses();
  registerFuserConversionPasses();
  registerPipelines();
  // Upstream cleanups that fuser's pipelines and tests run.
  registerCanonicalizerPass();
  registerCSEPass();
  registerSymbolDCEPass();
  // The upstream lowering passes fuser-compile runs, for custom pipelines.
  registerConversionPasses();
  registerGPUPasses();
  // Sharding a fusion over a device grid (the fuser-partition pipeline).
  shard::registerShardingPropagation();
  shard::registerPartition();
  registerPass([] { return createReshardInStepsPass(); });
}
