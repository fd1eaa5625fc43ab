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

struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  // The options sigreg-run also takes (GpuOptions.def), then the
  // pipeline's own.
#define SIGREG_GPU_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)              \
  PassOptions::Option<TYPE> NAME{*this, FLAG, llvm::cl::desc(DESCRIPTION),     \
                                 llvm::cl::init(DEFAULT)};
#include "sigreg/Pipelines/GpuOptions.def"
  PassOptions::Option<std::string> features{*this, "features",
                                            llvm::cl::desc("PTX features"),
                                            llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (PTX), bin, fatbin, "
                     "or none to stop before serialization"),
      llvm::cl::init("isa")};
};

/// The product: decompose, fuse, lower the fused ops to GPU kernels with
/// explicit schedules, kernels to NVVM and PTX. Host code stays at the
/// memref + gpu.launch_func level (the runner turns it into a manifest).
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// The eager-PyTorch baseline on the GPU: decompose, naive linalg lowering,
/// bufferization, one kernel per linalg op, NVVM and PTX.
void buildNaiveGpuPipeline(OpPassManager &pm,
                           const GpuPipelineOptions &options);

/// Registers all pipelines with the global registry.
void registerSigregPipelines();

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_PIPELINES_PIPELINES_H
