//===- SigregDialect.cpp - sigreg dialect ---------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sigreg;

/// The schedule's trailing knobs, each `, name = value` and printed only
/// when it is not its default (cluster 1, warps 8), in any order when
/// parsed.
static ParseResult parseScheduleExtras(AsmParser &parser, int64_t &cluster,
                                       int64_t &warps) {
  cluster = 1;
  warps = 8;
  bool seenCluster = false, seenWarps = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef name;
    if (parser.parseKeyword(&name))
      return failure();
    bool isCluster = name == "cluster";
    if (!isCluster && name != "warps")
      return parser.emitError(loc, "expected 'cluster' or 'warps', got '")
             << name << "'";
    bool &seen = isCluster ? seenCluster : seenWarps;
    if (seen)
      return parser.emitError(loc, "'") << name << "' given twice";
    seen = true;
    if (parser.parseEqual() || parser.parseInteger(isCluster ? cluster : warps))
      return failure();
  }
  return success();
}

static void printScheduleExtras(AsmPrinter &printer, int64_t cluster,
                                int64_t warps) {
  if (cluster != 1)
    printer << ", cluster = " << cluster;
  if (warps != 8)
    printer << ", warps = " << warps;
}

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
