//===- RareHelper.cpp - Rarely taken code as a helper beside the kernels --===//
//
// See RareHelper.h.
//
//===----------------------------------------------------------------------===//

#include "fuser/Math/RareHelper.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

func::FuncOp mlir::fuser::getOrCreateRareHelper(
    OpBuilder &b, Location loc, StringRef name, FunctionType type,
    function_ref<SmallVector<Value>(OpBuilder &, Block &entry)> buildBody) {
  Block *block = b.getInsertionBlock();
  Operation *scope = block ? block->getParentOp() : nullptr;
  Operation *table = scope ? SymbolTable::getNearestSymbolTable(scope) : nullptr;
  if (!table || table == scope || table->getNumRegions() != 1 ||
      !table->getRegion(0).hasOneBlock())
    return nullptr;
  if (auto f = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(table, name)))
    return f;
  OpBuilder fb = OpBuilder::atBlockBegin(&table->getRegion(0).front());
  auto f = func::FuncOp::create(fb, loc, name, type);
  f.setPrivate();
  f->setAttr("llvm.linkage",
             LLVM::LinkageAttr::get(fb.getContext(), LLVM::Linkage::LinkonceODR));
  Block *entry = f.addEntryBlock();
  fb.setInsertionPointToStart(entry);
  SmallVector<Value> results = buildBody(fb, *entry);
  func::ReturnOp::create(fb, loc, results);
  return f;
}

Value mlir::fuser::callLaneByLane(OpBuilder &b, Location loc, func::FuncOp helper,
                                  ValueRange args) {
  auto vt = dyn_cast<VectorType>(args.front().getType());
  if (!vt)
    return func::CallOp::create(b, loc, helper, args).getResult(0);
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < vt.getNumElements(); ++i) {
    SmallVector<Value> laneArgs;
    for (Value a : args)
      laneArgs.push_back(vector::ExtractOp::create(b, loc, a, i));
    lanes.push_back(func::CallOp::create(b, loc, helper, laneArgs).getResult(0));
  }
  return vector::FromElementsOp::create(b, loc, vt, lanes);
}
