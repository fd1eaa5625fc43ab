//===- Passes.h - passes on lowered GPU kernels -----------------*- C++ -*-===//

#ifndef SIGREG_TRANSFORMS_PASSES_H
#define SIGREG_TRANSFORMS_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sigreg {

/// Kernel attribute (a DenseI64ArrayAttr of argument indices) naming the
/// !llvm.ptr arguments that stand for 128-byte by-value grid constants (CUDA
/// tensor maps); see --sigreg-grid-constant-params. A function attribute, not
/// an argument attribute, because convert-gpu-to-nvvm keeps the former and
/// drops the latter.
constexpr llvm::StringLiteral kGridConstantAttrName = "sigreg.grid_constants";
/// Size and alignment of such a parameter.
constexpr int64_t kGridConstantBytes = 128, kGridConstantAlign = 64;
/// Unit attribute on a gpu.launch_func whose kernel may start before the
/// previous launch in the stream finishes (programmatic dependent launch:
/// the manifest's "programmatic"; the kernel runs griddepcontrol.wait before
/// it reads that launch's results, and the previous kernel signals
/// griddepcontrol.launch_dependents once its stores are issued).
constexpr llvm::StringLiteral kProgrammaticLaunchAttrName =
    "sigreg.programmatic";
/// Unit attribute on a gpu.launch_func whose kernel waits at a grid-wide
/// barrier, so that every CTA must be resident at once: the manifest's
/// "cooperative", a cooperative launch (CU_LAUNCH_ATTRIBUTE_COOPERATIVE: the
/// driver refuses a grid that does not fit instead of letting it hang).
constexpr llvm::StringLiteral kCooperativeLaunchAttrName = "sigreg.cooperative";
/// String attribute on the gpu.launch_func that starts a step function's
/// backward phase ("backward"; --convert-sigreg-to-gpu=defer-cotangent=1):
/// it and the launches after it read the function's cotangent argument,
/// the launches before it do not (the manifest's "phase", docs/AOT.md).
constexpr llvm::StringLiteral kPhaseAttrName = "sigreg.phase";
/// Dictionary attribute {result = i64, offset = i64} on a workspace's
/// memref.alloc: the function may place it `offset` bytes into the buffer of
/// its result number `result`, one allocation of max(that result's bytes,
/// offset + the workspace's bytes); its kernels are correct either way (the
/// manifest's "shares", docs/AOT.md). --convert-sigreg-to-gpu sets it on the
/// 16-bit dL/dy that a backward GEMM split in row parts reads while it writes
/// dL/dx (docs/BACKWARD.md).
constexpr llvm::StringLiteral kSharesResultAttrName = "sigreg.shares_result";
/// On a memref.alloc: the runtime keeps the buffer in the L2 cache's
/// persisting portion for the launches that read or write it (the manifest's
/// "l2_persist", docs/AOT.md). --convert-sigreg-to-gpu sets it on a large
/// seeded projection that every batch tile of the one-tile Hopper kernel
/// re-reads (docs/GPU-SCHEDULES.md).
constexpr llvm::StringLiteral kL2PersistAttrName = "sigreg.l2_persist";
/// On a func.func: the byte alignment its kernels need of the input x (the
/// manifest's "align" of buffer x, which the runtime checks at binding).
/// --convert-sigreg-to-gpu sets 16 where a single launch copies x into
/// shared memory by bulk copies (16-byte pieces).
constexpr llvm::StringLiteral kXAlignAttrName = "sigreg.x_align";

#define GEN_PASS_DECL
#include "sigreg/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sigreg/Transforms/Passes.h.inc"

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_TRANSFORMS_PASSES_H
