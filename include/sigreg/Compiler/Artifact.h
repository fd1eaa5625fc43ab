//===- Artifact.h - AOT artifacts: PTX + manifest ---------------*- C++ -*-===//
//
// The GPU pipelines end with host code at the memref + gpu.launch_func level
// and the kernels serialized to PTX (gpu.binary). This file turns such a
// module into a `sigreg-aot-v1` artifact: the PTX text and a manifest
// (buffers, scalars, the ordered launch/copy steps with their arguments) that
// lib/Runtime executes without MLIR. docs/AOT.md documents the format and the
// C ABI of the executor.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_COMPILER_ARTIFACT_H
#define SIGREG_COMPILER_ARTIFACT_H

#include "sigreg/Pipelines/Pipelines.h"
#include "sigreg/Runtime/Manifest.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir {
namespace sigreg {

struct Artifact {
  std::string manifestJson;
  std::string ptx;
};

/// The manifest's "problem" object (also used by sigreg-run's JSON reports).
llvm::json::Object problemToJson(const ::sigreg::runtime::ProblemDesc &problem);

enum class GpuPipelineKind { Fused, Naive };
StringRef stringifyPipeline(GpuPipelineKind kind);

/// Compiles a clone of `module` with the GPU pipeline of `kind` (the entry
/// function must have static shapes) and extracts the artifact. Diagnostics
/// go to the context's handler.
FailureOr<Artifact>
compileForCuda(ModuleOp module, StringRef entry,
               const ::sigreg::runtime::ProblemDesc &problem,
               GpuPipelineKind kind, const GpuPipelineOptions &options);

/// Extracts the artifact from a module the GPU pipeline has compiled.
FailureOr<Artifact>
extractArtifact(ModuleOp compiled, StringRef entry,
                const ::sigreg::runtime::ProblemDesc &problem,
                StringRef pipeline, StringRef chip);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_COMPILER_ARTIFACT_H
