//===- FuserDialect.cpp - fuser dialect registration ----------------------===//

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

#include "fuser/Dialect/Fuser/IR/FuserOpsDialect.cpp.inc"
#include "fuser/Dialect/Fuser/IR/FuserOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOpsAttributes.cpp.inc"

void FuserDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fuser/Dialect/Fuser/IR/FuserOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fuser/Dialect/Fuser/IR/FuserOpsAttributes.cpp.inc"
      >();
}

Operation *FuserDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                             Type type, Location loc) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return nullptr;
  // Folders return the scalar that fills the splat.
  auto scalar = dyn_cast<TypedAttr>(value);
  if (auto dense = dyn_cast<SplatElementsAttr>(value))
    scalar = dense.getSplatValue<TypedAttr>();
  if (!scalar || scalar.getType() != tensorType.getElementType())
    return nullptr;
  return ConstantOp::create(builder, loc, tensorType, scalar);
}

LogicalResult FuserDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kScheduleAttr) {
    if (!isa<func::FuncOp>(op) || !isa<ScheduleAttr>(attr.getValue()))
      return op->emitError("'") << kScheduleAttr
                                << "' must be a #fuser.schedule on a fusion, got "
                                << attr.getValue();
    return success();
  }
  if (attr.getName() == kSchedulesAttr) {
    auto list = dyn_cast<ArrayAttr>(attr.getValue());
    if (!isa<func::FuncOp>(op) || !list ||
        !llvm::all_of(list, [](Attribute a) { return isa<ScheduleAttr>(a); }))
      return op->emitError("'") << kSchedulesAttr
                                << "' must be an array of #fuser.schedule on a fusion, one "
                                   "per segment, got "
                                << attr.getValue();
    // An entry is its segment's already: `KEY[SEGMENT]` belongs on the
    // fusion's fuser.schedule or the schedule option.
    for (auto [i, entry] : llvm::enumerate(list))
      if (!Schedule::fromAttr(cast<ScheduleAttr>(entry)).segments.empty())
        return op->emitError("'")
               << kSchedulesAttr << "' entry " << i << " is segment " << i
               << "'s schedule; a decision for one segment (KEY[SEGMENT]) belongs in '"
               << kScheduleAttr << "', got " << entry;
  }
  return success();
}

LogicalResult FuserDialect::verifyRegionArgAttribute(Operation *op, unsigned region,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != kStridesAttr)
    return success();
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn || region != 0)
    return op->emitError("'") << kStridesAttr << "' belongs on a fusion's argument";
  auto layout = dyn_cast<StridedLayoutAttr>(attr.getValue());
  if (!layout)
    return op->emitError("argument ")
           << argIndex << ": '" << kStridesAttr
           << "' must be a strided layout such as strided<[1, ?]>, got " << attr.getValue();
  auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[argIndex]);
  if (!type)
    return op->emitError("argument ") << argIndex << ": '" << kStridesAttr
                                      << "' is for a ranked tensor argument";
  if (layout.getOffset() != 0)
    return op->emitError("argument ")
           << argIndex << ": '" << kStridesAttr << "' has offset "
           << (ShapedType::isDynamic(layout.getOffset()) ? std::string("?")
                                                         : std::to_string(layout.getOffset()))
           << "; a view's first element is where the argument points (pass the address of "
              "that element), so the offset is 0";
  if ((int64_t)layout.getStrides().size() != type.getRank())
    return op->emitError("argument ") << argIndex << ": '" << kStridesAttr << "' has "
                                      << layout.getStrides().size()
                                      << " strides for a tensor of rank " << type.getRank();
  for (auto [d, s] : llvm::enumerate(layout.getStrides()))
    if (!ShapedType::isDynamic(s) && s < 0)
      return op->emitError("argument ")
             << argIndex << ": '" << kStridesAttr << "' has stride " << s << " on dim " << d
             << "; strides are >= 0 (0 repeats an element: an expanded dim)";
  // With static sizes and strides, the elements the view reaches must be
  // countable.
  if (type.hasStaticShape() && llvm::none_of(layout.getStrides(), ShapedType::isDynamic) &&
      viewSpanOverflows(type.getShape(), layout.getStrides()))
    return op->emitError("argument ")
           << argIndex << ": '" << kStridesAttr
           << "' reaches 2^63 elements or more from the argument's start";
  return success();
}

bool mlir::fuser::viewSpanOverflows(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  // Not the element count: that can overflow too ({2^40, 2^30}), and then
  // said nothing.
  if (llvm::is_contained(shape, 0))
    return false;
  int64_t span = 1;
  for (auto [size, stride] : llvm::zip(shape, strides)) {
    int64_t term;
    if (__builtin_mul_overflow(size - 1, stride, &term) ||
        __builtin_add_overflow(span, term, &span))
      return true;
  }
  return false;
}

LogicalResult FuserDialect::verifyRegionResultAttribute(Operation *op, unsigned region,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  if (attr.getName() != kStridesAttr)
    return success();
  return op->emitError("result ") << resultIndex << ": '" << kStridesAttr
                                  << "' is for arguments; a fusion's results are dense, "
                                     "row-major";
}
