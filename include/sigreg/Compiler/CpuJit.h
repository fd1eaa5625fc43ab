//===- CpuJit.h - compile and run an entry function on the CPU --*- C++ -*-===//

#ifndef SIGREG_COMPILER_CPUJIT_H
#define SIGREG_COMPILER_CPUJIT_H

#include "sigreg/Runtime/Harness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <vector>

namespace mlir {
namespace sigreg {

/// A JIT-compiled entry function (sigreg-cpu-pipeline + ExecutionEngine).
class CpuJit {
public:
  /// Compiles a clone of `module` with `entry` as the function to call.
  /// Errors are emitted as diagnostics at their locations.
  static FailureOr<std::unique_ptr<CpuJit>> compile(ModuleOp module,
                                                    StringRef entry);

  /// Runs once on `inputs`, writing the f32 outputs into `out` (resized to
  /// the output element count and poisoned with NaN first), and for a step
  /// problem dL/dx into `dx` (required then, likewise resized and poisoned).
  LogicalResult run(const ::sigreg::runtime::ProblemInputs &inputs,
                    std::vector<float> &out, std::vector<float> *dx = nullptr);

private:
  CpuJit() = default;
  std::unique_ptr<ExecutionEngine> engine;
  std::string symbol;
};

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_COMPILER_CPUJIT_H
