//===- Passes.td - passes on lowered GPU kernels ----------*- tablegen -*-===//
//
// Passes that run inside `gpu.module`s after their lowering to the LLVM and
// NVVM dialects, where the upstream conversions leave something the NVPTX
// backend or the CUDA driver needs done differently.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_TRANSFORMS_PASSES_TD
#define SIGREG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SigregExternDynamicSharedMemory
    : Pass<"sigreg-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory buffer as `.extern .shared` aligned to 1024 bytes";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to an internal
    zero-sized `llvm.mlir.global` in address space 3. The NVPTX backend of
    LLVM 22 prints that as a one-byte static `.shared` variable, so the
    "dynamic" buffer starts inside the static shared memory and overlaps
    whatever follows it (the mbarriers of `nvgpu.mbarrier.create`). This pass
    turns every such global into an external declaration, printed as
    `.extern .shared .align 1024 .b8 name[];`: the driver places it after all
    static shared memory, and the 1024-byte alignment is what the 128-byte
    TMA/wgmma swizzle patterns assume.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "1024",
           "Alignment of the dynamic shared memory buffer in bytes">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SigregGridConstantParams
    : Pass<"sigreg-grid-constant-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass the kernel arguments listed in `sigreg.grid_constants` as 128-byte by-value grid constants";
  let description = [{
    A CUDA tensor map (`CUtensorMap`, 128 bytes, 64-byte aligned) is passed to
    a TMA kernel by value, as a `__grid_constant__` parameter, so that the
    kernel can hand the parameter's address to `cp.async.bulk.tensor`.
    `gpu.func` cannot carry that convention (its tensor-map arguments do not
    legalize, `nvvm.grid_constant` is rejected there, and `convert-gpu-to-nvvm`
    drops `llvm.byval` and unknown argument attributes), so the GPU lowering
    passes an `!llvm.ptr` and lists such arguments in the kernel attribute
    `sigreg.grid_constants = array<i64: ...>`. After `convert-gpu-to-nvvm`,
    this pass gives each listed `llvm.func` argument `llvm.byval =
    !llvm.array<128 x i8>`, `llvm.align = 64` and `nvvm.grid_constant`, and
    removes the list: the PTX parameter becomes `.param .align 64 .b8
    name[128]`, and the runtime passes the 128 bytes by value.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def SigregPreciseSqrt
    : Pass<"sigreg-precise-sqrt", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower libdevice's f32 square root (`__nv_sqrtf`) to the correctly rounded `llvm.intr.sqrt`";
  let description = [{
    `convert-gpu-to-nvvm` lowers `math.sqrt` on f32 to a call of libdevice's
    `__nv_sqrtf`, which selects `sqrt.approx.f32` unless the module asks for
    precise square roots through `__nvvm_reflect("__CUDA_PREC_SQRT")`, and
    MLIR 22's NVVM target gives no way to ask. The projection's mapping
    (docs/PROJECTION.md) takes a correctly rounded square root, so that the
    GPU's Gaussians are the host's bit for bit. This pass replaces every call
    of `__nv_sqrtf` by `llvm.intr.sqrt`, which the NVPTX backend emits as
    `sqrt.rn.f32`, and erases the declaration once nothing calls it. The GPU
    pipelines run it with their option `precise-sqrt=1` (it costs 9% at the
    blog shape, docs/GPU-SCHEDULES.md).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // SIGREG_TRANSFORMS_PASSES_TD
