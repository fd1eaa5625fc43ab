//===- Pipelines.cpp - registered sigreg pipelines ------------------------===//

#include "sigreg/Pipelines/Pipelines.h"
#include "sigreg/Conversion/Passes.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"
#include "sigreg/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::sigreg;

/// Tensors -> memrefs with identity layouts at function boundaries; results
/// become out-parameters so that callers own every buffer (a tensor returned
/// twice first gets a copy: --sigreg-distinct-results).
static void addBufferization(OpPassManager &pm, bool deallocate = true) {
  pm.addNestedPass<func::FuncOp>(createSigregDistinctResults());
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  bufferization::BufferResultsToOutParamsPassOptions outOpts;
  outOpts.modifyPublicFunctions = true;
  outOpts.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outOpts));
  if (!deallocate)
    return;
  bufferization::BufferDeallocationPipelineOptions deallocOpts;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOpts);
}

void mlir::sigreg::buildCpuPipeline(OpPassManager &pm,
                                    const CpuPipelineOptions &) {
  pm.addPass(createSigregDecompose());
  pm.addPass(createSigregLowerNaive());
  // Elementwise arith on tensors around the sigreg ops (a step's dL/dx
  // rounded to x's type by arith.truncf) as linalg.generic.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

/// The CUDA toolkit whose libdevice the kernels link (math.cos/sin/sqrt lower
/// to __nv_* calls): $CUDA_HOME, $CUDA_ROOT, $CUDA_PATH, else /usr/local/cuda.
static std::string findCudaToolkit() {
  for (const char *var : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (const char *dir = std::getenv(var); dir && *dir)
      return dir;
  if (llvm::sys::fs::is_directory("/usr/local/cuda/nvvm/libdevice"))
    return "/usr/local/cuda";
  return "";
}

/// Kernels (gpu.module) to NVVM, then PTX/cubin; the host is left as is.
static void addDeviceLowering(OpPassManager &pm,
                              const GpuPipelineOptions &options) {
  OpPassManager &dev = pm.nest<gpu::GPUModuleOp>();
  // nvgpu (TMA, mbarriers, wgmma) first: it produces scf, memref and NVVM.
  dev.addPass(createConvertNVGPUToNVVMPass());
  dev.addPass(createSCFToControlFlowPass());
  dev.addPass(memref::createExpandStridedMetadataPass());
  dev.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions nvvmOpts;
  nvvmOpts.useBarePtrCallConv = true;
  dev.addPass(createConvertGpuOpsToNVVMOps(nvvmOpts));
  dev.addPass(createConvertNVVMToLLVMPass());
  // What the NVPTX backend and the driver need beyond the upstream lowering:
  // (on request) correctly rounded f32 square roots, the dynamic shared
  // buffer as `.extern .shared .align 1024`, tensor maps as 128-byte by-value
  // grid constants.
  if (options.preciseSqrt)
    dev.addPass(createSigregPreciseSqrt());
  dev.addPass(createSigregExternDynamicSharedMemory());
  dev.addPass(createSigregGridConstantParams());
  dev.addPass(createCanonicalizerPass());
  dev.addPass(createCSEPass());
  dev.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions targetOpts;
  targetOpts.chip = options.chip;
  targetOpts.features = options.features;
  targetOpts.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(targetOpts));
  if (options.format != "none") {
    GpuModuleToBinaryPassOptions binOpts;
    binOpts.compilationTarget = options.format;
    binOpts.toolkitPath = findCudaToolkit();
    pm.addPass(createGpuModuleToBinaryPass(binOpts));
  }
}

void mlir::sigreg::buildGpuPipeline(OpPassManager &pm,
                                    const GpuPipelineOptions &options) {
  pm.addPass(createSigregDecompose());
  // A loss and its gradient in one function (a training step) decompose into
  // the same forward ops: one copy of them, so that the fusions give one
  // forward kernel whose means feed both the loss's epilogue and the
  // backward (and --sigreg-save-slices its slices).
  pm.addPass(createCSEPass());
  pm.addPass(createSigregFuseEcfBackward());
  pm.addPass(createSigregFuseEcf());
  pm.addPass(createSigregFuseEpilogue());
  pm.addPass(createCanonicalizerPass());
  SigregChooseScheduleOptions scheduleOpts;
  scheduleOpts.blockRows = options.blockRows;
  scheduleOpts.blockSlices = options.blockSlices;
  scheduleOpts.tensorCores = options.tensorCores;
  scheduleOpts.hopper = options.chip == "sm_90a";
  scheduleOpts.wgmmaSlices = options.wgmmaSlices;
  scheduleOpts.wgmmaPersistent = options.wgmmaPersistent;
  scheduleOpts.wgmmaGenerate = options.wgmmaGenerate;
  scheduleOpts.wgmmaCooperative = options.wgmmaCooperative;
  scheduleOpts.wgmmaCluster = options.wgmmaCluster;
  scheduleOpts.wgmmaRows = options.wgmmaRows;
  scheduleOpts.singleLaunch = options.singleLaunch;
  scheduleOpts.singleLaunchWarps = options.singleLaunchWarps;
  scheduleOpts.promoteAccumulators = options.promoteAccumulators;
  pm.addPass(createSigregChooseSchedule(scheduleOpts));
  if (options.saveSlices) {
    SigregSaveSlicesOptions slicesOpts;
    slicesOpts.phase = options.slicesPhase;
    pm.addPass(createSigregSaveSlices(slicesOpts));
  }
  // Every fused_ecf now carries its schedule: the lowering follows it (its
  // own options are the fallback for IR without one). The fused backward has
  // no schedule attribute yet: it needs to know the target has the Hopper
  // kernels.
  ConvertSigregToGPUOptions lowerOpts;
  lowerOpts.tensorCores = options.tensorCores;
  lowerOpts.hopper = scheduleOpts.hopper;
  lowerOpts.wgmmaSlices = options.wgmmaSlices;
  lowerOpts.wgmmaCluster = options.wgmmaCluster;
  lowerOpts.wgmmaRows = options.wgmmaRows;
  lowerOpts.deferCotangent = options.deferCotangent;
  // The exact projection (the host's g bit for bit) needs both the exact
  // mapping and correctly rounded square roots.
  lowerOpts.fastNormals = options.fastNormals && !options.preciseSqrt;
  lowerOpts.promoteAccumulators = options.promoteAccumulators;
  lowerOpts.singleLaunchFastNormals = options.singleLaunchFastNormals;
  lowerOpts.singleLaunchStagger = options.singleLaunchStagger;
  lowerOpts.singleLaunchFragmentEcf = options.singleLaunchFragmentEcf;
  lowerOpts.singleLaunchStepGroup = options.singleLaunchStepGroup;
  lowerOpts.singleLaunchPrefetchX = options.singleLaunchPrefetchX;
  lowerOpts.singleLaunchPrefetchTail = options.singleLaunchPrefetchTail;
  lowerOpts.singleLaunchTransposedEcf = options.singleLaunchTransposedEcf;
  lowerOpts.singleLaunchStageX = options.singleLaunchStageX;
  lowerOpts.singleLaunchStageTma = options.singleLaunchStageTma;
  lowerOpts.singleLaunchGenAhead = options.singleLaunchGenAhead;
  lowerOpts.singleLaunchMinctasm = options.singleLaunchMinctasm;
  lowerOpts.singleLaunchTermSums = options.singleLaunchTermSums;
  lowerOpts.wgmmaAtomicSums = options.wgmmaAtomicSums;
  pm.addPass(createConvertSigregToGPU(lowerOpts));
  // The host side as the naive pipeline bufferizes it: results become
  // out-parameters that the last kernel writes in place.
  addBufferization(pm, /*deallocate=*/false);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addDeviceLowering(pm, options);
}

void mlir::sigreg::buildNaiveGpuPipeline(OpPassManager &pm,
                                         const GpuPipelineOptions &options) {
  pm.addPass(createSigregDecompose());
  SigregLowerNaiveOptions naiveOpts;
  naiveOpts.hostStep = false; // the counter is in device memory
  pm.addPass(createSigregLowerNaive(naiveOpts));
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Device buffers live as long as the launch sequence (the manifest's
  // workspaces): no host deallocation code.
  addBufferization(pm, /*deallocate=*/false);
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createSigregLinalgToGPU());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addDeviceLowering(pm, options);
}

void mlir::sigreg::registerSigregPipelines() {
  PassPipelineRegistration<>(
      "sigreg-gpu-bufferize",
      "The host bufferization of both GPU pipelines: one-shot bufferization "
      "with function boundaries and identity layouts, results as "
      "out-parameters (static allocations hoisted into them), no "
      "deallocation (after --convert-sigreg-to-gpu, buffers live as long as "
      "the launch sequence)",
      [](OpPassManager &pm) { addBufferization(pm, /*deallocate=*/false); });
  PassPipelineRegistration<GpuPipelineOptions>(
      "sigreg-gpu-pipeline",
      "Compile sigreg.loss for NVIDIA GPUs with the fused kernels: decompose, "
      "fuse ECF and epilogue, GPU kernels, NVVM, PTX",
      buildGpuPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "sigreg-naive-gpu-pipeline",
      "Compile sigreg.loss for NVIDIA GPUs the way eager PyTorch runs it: "
      "naive linalg lowering, bufferization, one kernel per linalg op, NVVM, "
      "PTX",
      buildNaiveGpuPipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "sigreg-cpu-pipeline",
      "Compile sigreg.loss for the CPU: decompose, naive linalg lowering, "
      "bufferization, loops, LLVM dialect",
      buildCpuPipeline);
}
