//===- SigregDialect.cpp - sigreg dialect ---------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"

using namespace mlir;
using namespace mlir::sigreg;

#include "sigreg/Dialect/Sigreg/IR/SigregOpsDialect.cpp.inc"

void SigregDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sigreg/Dialect/Sigreg/IR/SigregOps.cpp.inc"
      >();
}
