//===- SigregDialect.cpp - sigreg dialect ---------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>

using namespace mlir;
using namespace mlir::sigreg;

/// The schedule's trailing knobs, each `, name = value` and printed only
/// when it is not its default (cluster 1, warps 8, promote 0), in any order
/// when parsed.
static ParseResult parseScheduleExtras(AsmParser &parser, int64_t &cluster,
                                       int64_t &warps, int64_t &promote) {
  struct Knob {
    StringRef name;
    int64_t *value;
    bool seen;
  };
  cluster = 1;
  warps = 8;
  promote = 0;
  std::array<Knob, 3> knobs = {Knob{"cluster", &cluster, false},
                               Knob{"warps", &warps, false},
                               Knob{"promote", &promote, false}};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef name;
    if (parser.parseKeyword(&name))
      return failure();
    Knob *knob =
        llvm::find_if(knobs, [&](const Knob &k) { return k.name == name; });
    if (knob == knobs.end())
      return parser.emitError(loc,
                              "expected 'cluster', 'warps' or 'promote', got '")
             << name << "'";
    if (knob->seen)
      return parser.emitError(loc, "'") << name << "' given twice";
    knob->seen = true;
    if (parser.parseEqual() || parser.parseInteger(*knob->value))
      return failure();
  }
  return success();
}

static void printScheduleExtras(AsmPrinter &printer, int64_t cluster,
                                int64_t warps, int64_t promote) {
  if (cluster != 1)
    printer << ", cluster = " << cluster;
  if (warps != 8)
    printer << ", warps = " << warps;
  if (promote != 0)
    printer << ", promote = " << promote;
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
