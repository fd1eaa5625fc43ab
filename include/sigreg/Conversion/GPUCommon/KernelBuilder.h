//===- KernelBuilder.h - terse IR building for GPU kernels ------*- C++ -*-===//
//
// The GPU lowerings build kernels op by op; this wrapper keeps that code
// close to the schedule it implements: index arithmetic, loops with carried
// values, guarded blocks, loads/stores and thread/block ids.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_CONVERSION_GPUCOMMON_KERNELBUILDER_H
#define SIGREG_CONVERSION_GPUCOMMON_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <array>

#include <functional>

namespace mlir {
namespace sigreg {

class KernelBuilder {
public:
  KernelBuilder(Location loc, OpBuilder &builder) : b(loc, builder) {}

  ImplicitLocOpBuilder b;

  // Constants.
  Value idx(int64_t v);
  Value f32(float v);

  // Index arithmetic.
  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, Value y); // unsigned
  Value rem(Value x, Value y); // unsigned
  Value min(Value x, Value y);
  Value lt(Value x, Value y); // unsigned <
  Value land(Value x, Value y);

  // Float arithmetic (no contraction: every fused multiply-add is explicit).
  Value addf(Value x, Value y);
  Value subf(Value x, Value y);
  Value mulf(Value x, Value y);
  Value divf(Value x, Value y);
  Value fma(Value x, Value y, Value z);
  Value select(Value c, Value x, Value y);
  /// bf16/f16 -> f32 (identity for f32).
  Value toF32(Value v);

  // GPU ids (index).
  Value threadId(gpu::Dimension d);
  Value blockId(gpu::Dimension d);
  void barrier();

  // Memory.
  Value load(Value memref, ValueRange indices);
  void store(Value value, Value memref, ValueRange indices);

  // Control flow.
  void forEach(Value lb, Value ub, Value step,
               const std::function<void(Value)> &body);
  SmallVector<Value>
  forEach(Value lb, Value ub, Value step, ValueRange inits,
          const std::function<SmallVector<Value>(Value, ValueRange)> &body);
  void ifThen(Value cond, const std::function<void()> &body);
  /// `then()` where `cond` holds, else `otherwise` (one scf.if yielding a
  /// value of otherwise's type).
  Value ifElse(Value cond, const std::function<Value()> &then, Value otherwise);
};

/// The module's `gpu.module @sigreg_kernels`, created at its end when missing;
/// marks `module` as a GPU container module.
gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module);

/// Launches `kernel` with constant `grid` and 1-D blocks of `blockThreads`
/// at `b`'s insertion point, tagged with the kernel's `sigreg.region`, with
/// `dynamicSharedBytes` of dynamic shared memory when nonzero.
gpu::LaunchFuncOp createLaunch(OpBuilder &b, Location loc,
                               gpu::GPUFuncOp kernel,
                               std::array<int64_t, 3> grid,
                               int64_t blockThreads, ValueRange args,
                               int64_t dynamicSharedBytes = 0);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_CONVERSION_GPUCOMMON_KERNELBUILDER_H
