//===- sigreg-opt.cpp - the sigreg optimizer driver -----------------------===//
//
// mlir-opt for this project: the sigreg dialect, its passes and pipelines,
// plus every upstream dialect, pass and extension (the static release: those
// of the sigreg pipelines, lib/Tools/Registration.cpp), so each stage can be
// inspected.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::sigreg::registerSigregOptDialectsAndPasses(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "sigreg optimizer driver\n", registry));
}
