//===- SigregDialect.cpp - sigreg dialect ---------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sigreg;

#include "sigreg/Dialect/Sigreg/IR/SigregOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sigreg/Dialect/Sigreg/IR/SigregAttrs.cpp.inc"

void SigregDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sigreg/Dialect/Sigreg/IR/SigregOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sigreg/Dialect/Sigreg/IR/SigregAttrs.cpp.inc"
      >();
}
