//===- Passes.td - sigreg conversion passes ---------------*- tablegen -*-===//

#ifndef SIGREG_CONVERSION_PASSES_TD
#define SIGREG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSigregToGPU : Pass<"convert-sigreg-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower the fused sigreg ops to GPU kernels with explicit schedules";
  let description = [{
    Rewrites every function holding fused sigreg ops (after
    `--sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue`) into host
    code on memrefs (arguments become memrefs, results become trailing
    out-parameters, intermediates `memref.alloc` workspaces) that launches
    kernels of `gpu.module @sigreg_kernels` with `gpu.launch_func`. Shapes must
    be static. The schedules are documented in docs/GPU-SCHEDULES.md:

    - `sigreg.projection` -> `sigreg_projection`: one thread per slice column
      and chunk of D rows; writes raw g and per-chunk sums of g^2.
    - `sigreg.fused_ecf` -> `sigreg_fused_ecf`: a block per (slice tile,
      batch tile, view), 256 threads, shared-memory tiled f32 GEMM; y stays in
      registers, cos/sin by one sincos and an angle-addition recurrence over
      the points, batch sums reduced through shared memory. With more than
      one batch tile, `sigreg_ecf_finalize` sums the tiles in a fixed order.
    - `sigreg.fused_epilogue` -> `sigreg_epilogue`: one block, thread-strided
      statistic and a fixed-order tree reduction (mean/sum), or one thread
      per statistic (none).
  }];
  let options = [
    Option<"blockRows", "block-rows", "int64_t", "0",
           "Batch rows per block of the fused ECF kernel (16, 32 or 64; 0: by shape)">,
    Option<"blockSlices", "block-slices", "int64_t", "0",
           "Slices per block of the fused ECF kernel (16, 32 or 64; 0: by shape)">,
    Option<"projectionChunk", "projection-chunk", "int64_t", "64",
           "Rows of D per thread of the projection kernel">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // SIGREG_CONVERSION_PASSES_TD
