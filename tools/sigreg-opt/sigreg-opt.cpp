//===- sigreg-opt.cpp - the sigreg optimizer driver -----------------------===//
//
// mlir-opt for this project: the sigreg dialect, its passes and pipelines,
// plus every upstream dialect, pass and extension, so each stage can be
// inspected.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Conversion/Passes.h"
#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"
#include "sigreg/Pipelines/Pipelines.h"
#include "sigreg/Transforms/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::sigreg::registerSigregPasses();
  mlir::sigreg::registerSigregConversionPasses();
  mlir::sigreg::registerSigregTransformsPasses();
  mlir::sigreg::registerSigregPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::sigreg::SigregDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "sigreg optimizer driver\n", registry));
}
