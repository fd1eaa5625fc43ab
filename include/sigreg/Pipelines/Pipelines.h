//===- Pipelines.h - registered sigreg pipelines ----------------*- C++ -*-===//
//
// Every pipeline of the project is built and registered here, so that
// `sigreg-opt --<pipeline>` and the in-process compiler of `sigreg-run` run
// exactly the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_PIPELINES_PIPELINES_H
#define SIGREG_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace sigreg {

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {};

/// sigreg.loss -> decompose -> naive linalg -> bufferize -> loops -> LLVM.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Registers all pipelines with the global registry.
void registerSigregPipelines();

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_PIPELINES_PIPELINES_H
