//===- WgmmaEcfKernel.cpp - the Hopper fused ECF kernel (TMA + wgmma) -----===//
//
// `sigreg_fused_ecf_wgmma`: the fused ECF of one CTA tile of 128 batch rows x
// 256 slices on sm_90a, built from nvgpu ops in named stages:
//
//   1. emitBarrierSetup   mbarrier rings `full` (TMA -> MMA, one arrival plus
//                         the transaction bytes) and `empty` (MMA -> TMA, one
//                         arrival per consumer warpgroup), descriptor
//                         prefetch.
//   2. emitTmaProducer    warpgroup 2, one thread: for each k-tile of 64
//                         features waits for a free stage, then loads the x
//                         tile [128 rows][64 k] and the g tile [64 k][256
//                         slices] (four 64 x 64 boxes) with TMA, 128-byte
//                         swizzle, completing on full[stage].
//   3. emitWgmmaMainloop  warpgroups 0 and 1 (64 rows each): wait full[stage],
//                         wgmma m64n256k16 x4 from shared memory descriptors
//                         into 128 f32 accumulators per thread, release the
//                         previous stage once its MMAs are done.
//   3b. promoteAccumulator (schedule promote, the 128 x 64 tile): every
//                         `promote` k-tiles the accumulator's values added
//                         into f32 registers, the MMAs restarted from zero.
//   4. emitAccumulatorTile the accumulators -> a shared f32 y tile [128][256]
//                         that aliases the operand ring.
//   5. emitEcfColumns     thread t owns slice s0 + t: column norm (seeded),
//                         then per row one range-reduced sincos of dt*y and
//                         the Chebyshev recurrence c_{p+1} = 2 c_1 c_p -
//                         c_{p-1} (same for sin) over the points, summed in
//                         registers; writes the tile's partial sums (or the
//                         means when the batch is one tile).
//
// `sigreg_fused_ecf_wgmma_transposed` (tile [256, 128], by rule where the
// 128-row kernel takes 256-slice tiles; --wgmma-rows): one CTA tile of 256
// batch rows x 128 slices, the same stages 1 and 2 (an x box of 256 rows),
// then
//   3''. emitTransposedMainloop  the transposed product D = g^T x^T: each
//                         consumer warpgroup one nvvm.wgmma.mma_async
//                         m64n256k16 per k16 step on its 64-slice g box
//                         (emitTransposedKTile: A = the box read M-major,
//                         B = the x tile), 128 accumulators per thread;
//   5''. emitTransposedEcf the ECF straight from the accumulators (a thread
//                         holds 64 rows of each of its 2 slices; the column
//                         scales from emitQuadColumnScales), the lane quads'
//                         sums added by shuffles (emitQuadSums): no y
//                         tile through shared memory, and half the per-tile
//                         sums of 128-row tiles for the finalize-loss kernel.
// Made persistent (kernel = wgmma_persistent, tile [256, 128]): CTA c keeps
// slice tile c % slice tiles and walks the row tiles of its group c / slice
// tiles (transposedSumGroups), the producer streaming their k-tiles as one
// run of ring steps (it fills the ring for the next tile during this one's
// ECF); the quad leaders add the tiles' sums into shared memory and write
// them once per view, so the finalize reads one sum per group.
//
// `sigreg_fused_ecf_wgmma_persistent` (--wgmma-persistent, the ping-pong
// kernel) walks tiles of 128 slices x 128 rows with one CTA per SM, in pairs
// of CTAs sharing the g tile where the batch tiles pair up. Each consumer
// warpgroup owns whole tiles, in turn with the other (named barriers):
//   3'. emitTransposedMainloop  the transposed product D = g^T x^T of the
//                         warpgroup's tile, 2 x 4 nvvm.wgmma.mma_async
//                         m64n128k16 per k-tile (emitTransposedKTile: A = the
//                         g boxes read M-major, B = the x tile);
//   5'. emitPingPongEcf   the ECF straight from the accumulators (a thread
//                         holds 32 rows of each of its 4 slices), the lane
//                         quads' sums added by shuffles,
// so one warpgroup's ECF runs while the other's MMAs do. Measured slower
// than the one-tile kernel: its operand traffic through shared memory per
// MAC is a quarter higher (docs/PERF-NOTES.md, sixteenth session).
//
// The tensor maps arrive as 128-byte by-value kernel parameters (the kernel
// sees an !llvm.ptr to them; --sigreg-grid-constant-params marks them), the
// operand ring lives in dynamic shared memory aligned to 1024 bytes
// (--sigreg-extern-dynamic-shared-memory). docs/GPU-SCHEDULES.md has the
// schedule and the measured figures.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>

using namespace mlir;
using namespace mlir::sigreg;

namespace {
using gpu::Dimension;

constexpr int64_t kRows = kWgmmaRows;
/// g tiles are loaded as boxes of 64 k x 64 slices (128 bytes, the swizzle
/// span).
constexpr int64_t kGBoxSlices = 64;
constexpr int64_t kConsumerThreads = 256;
/// Columns of the g tile that generates itself (kWgmmaGenerateSlices): the
/// consumer threads take them in 4 row parts.
constexpr int64_t kGenerateColumns = kWgmmaGenerateSlices;
/// Rows of the y tile one ECF iteration takes (in pairs: emitEcfRowPair):
/// independent recurrences a thread interleaves. 16 measured 1.5-2% faster
/// than 8 on the whole kernel at large (PERF-NOTES e3); with the pairs, 32
/// (16 pairs) measured 0.2 us faster than 16 at mid and 1.1 us at N 8192 D
/// 512, the same elsewhere, without spills (PERF-NOTES r32).
constexpr int64_t kEcfRowsPerStep = 32;
/// Rows per iteration of the other per-row stages over the y tile (the
/// slices' store, the gradient's dL/dy), and the floor of
/// ecfGradSliceRows: 8, as measured before the ECF's went to 16.
constexpr int64_t kRowsPerStep = 8;
/// Rows of y per group in sigreg_ecf_grad_slices (the next group's loads
/// are in flight while this group's harmonics run): 4 measured 0.168 ms at
/// large against 0.174 with 8 (52 registers against 62; forcing 5 blocks
/// per multiprocessor, 48 registers, spilled and measured 0.175).
constexpr int64_t kGradSliceRowsPerStep = 4;
/// Byte offset of the tail's means in the dynamic shared memory (after the
/// flag and the 256-float reduction buffer of TailScratch).
constexpr int64_t kTailMeansOffset = 2048;
/// Column norms from at most this many per-chunk sums are loaded all at
/// once (emitColumnScale): the loads of a loop unrolled by 8 by LLVM waited
/// for one memory latency per group, which delayed the mainloop at mid once
/// the scale moved before it (PERF-NOTES e2).
constexpr int64_t kUnrolledNormChunks = 64;
/// The tail's gather of the batch tiles issues at most this many loads before
/// adding them (emitGatherBatchTiles).
constexpr int64_t kTailLoadsInFlight = 96;
/// Padding of the y tile's rows (f32 words): with rows of slices + 4 words,
/// the 8 rows one warp's accumulator store touches start 4 banks apart, so
/// the store takes the minimum of 2 wavefronts instead of 8 (ncu counted
/// 3.1 M bank conflicts with unpadded rows; docs/PERF-NOTES.md).
constexpr int64_t kYRowPad = 4;
/// Longest mainloop emitted unrolled (emitUnrolledWgmmaMainloop).
constexpr int64_t kUnrolledKTiles = 64;

/// Types shared by the stages of one kernel.
struct WgmmaTypes {
  WgmmaTiling tiling;
  /// Bytes of one stage's x tile [128][tileK] and g tile [tileK][slices]
  /// (16-bit elements).
  int64_t slices, stages, tileK, xTileBytes, gTileBytes;
  Type elem;
  Attribute workgroup;
  MemRefType smemBytes;
  nvgpu::MBarrierGroupType barriers;
  nvgpu::TensorMapDescriptorType xMap, gMap;
  nvgpu::WarpgroupAccumulatorType acc;

  /// The B operand is K-major ([slices][tileK] boxes, wgmma without
  /// transpose): the backward GEMM's g [D, S], read with S as K. Otherwise
  /// N-major ([tileK][64] boxes, transposed): the forward's g [D, S] with D
  /// as K.
  bool kMajorB;

  /// The split layout (WgmmaEcfShape::splitFeatures = Dp): Dp features per
  /// part; k-tile `it` reads segment it / (Dp / tileK) of (x_hi, g_hi),
  /// (x_hi, g_lo), (x_lo, g_hi): g rows from Dp in segment 1, x columns from
  /// Dp in segment 2 (only an f32 problem has it). 0: one segment, x column
  /// = g row.
  int64_t splitFeatures;

  WgmmaTypes(MLIRContext *ctx, Type elem, WgmmaTiling tiling,
             bool kMajorB = false, int64_t splitFeatures = 0)
      : tiling(tiling), slices(tiling.slices), stages(tiling.stages),
        tileK(tiling.tileK), xTileBytes(tiling.rows * tiling.tileK * 2),
        gTileBytes(tiling.tileK * tiling.slices * 2), elem(elem),
        kMajorB(kMajorB), splitFeatures(splitFeatures) {
    workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    smemBytes = MemRefType::get({ShapedType::kDynamic},
                                IntegerType::get(ctx, 8), nullptr, workgroup);
    barriers = nvgpu::MBarrierGroupType::get(ctx, workgroup, stages);
    // The swizzle span is a box row: x rows of 64 features, g rows of 64
    // slices (128 bytes).
    auto tmap = [&](ArrayRef<int64_t> box) {
      return swizzledBoxMap(ctx, box, elem);
    };
    xMap = tmap({tiling.rows, tileK});
    gMap = kMajorB ? tmap({slices, tileK}) : tmap({tileK, kGBoxSlices});
    acc = nvgpu::WarpgroupAccumulatorType::get(
        ctx, VectorType::get({64, slices}, Float32Type::get(ctx)));
  }

  /// Consumer warpgroups that read each stage (arrivals on its `empty`
  /// barrier, per CTA): both in the one-tile kernels, the tile's owner in
  /// the ping-pong kernel.
  int64_t consumersPerStage() const { return tiling.pingPong() ? 1 : 2; }

  MemRefType tile(ArrayRef<int64_t> shape, Type e) const {
    return MemRefType::get(shape, e, nullptr, workgroup);
  }
};

/// A typed view of the dynamic shared memory at byte `offset`.
Value smemView(KernelBuilder &k, Value smem, Value offset, MemRefType type) {
  return memref::ViewOp::create(k.b, type, smem, offset, ValueRange());
}

Value i32Const(KernelBuilder &k, int64_t v) {
  return arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(v));
}

/// Named barrier 1 over the two consumer warpgroups (the producer never
/// joins it).
void consumerBarrier(KernelBuilder &k) {
  NVVM::BarrierOp::create(k.b, /*res=*/Type(), i32Const(k, 1),
                          i32Const(k, kConsumerThreads),
                          /*reductionOp=*/nullptr,
                          /*reductionPredicate=*/Value());
}

/// Stage 1: barrier initialization by thread 0, then a CTA barrier, then
/// griddepcontrol.wait: launched as a programmatic dependent of the kernel
/// before it (the projection; kProgrammaticLaunchAttrName), the kernel
/// starts while that one finishes and waits here for its results; launched
/// plainly, the wait returns at once.
///
/// In a cluster (WgmmaTiling::cluster) a stage's `empty` barrier counts the
/// consumer warpgroups of every CTA of the cluster (the peers' multicast
/// writes into the stage too), and the barriers are initialized cluster-wide
/// (fence.mbarrier_init, then a cluster barrier) before any peer's load or
/// arrive can reach them.
void emitBarrierSetup(KernelBuilder &k, const WgmmaTypes &t, Value full,
                      Value empty, Value xMap, Value gMap, Value tid) {
  int64_t cluster = t.tiling.cluster;
  k.ifThen(k.lt(tid, k.idx(1)), [&] {
    for (int64_t s = 0; s < t.stages; ++s) {
      nvgpu::MBarrierInitOp::create(k.b, full, k.idx(1), k.idx(s), Value());
      nvgpu::MBarrierInitOp::create(k.b, empty,
                                    k.idx(t.consumersPerStage() * cluster),
                                    k.idx(s), Value());
    }
    if (cluster > 1)
      NVVM::FenceMbarrierInitOp::create(k.b);
    nvgpu::TmaPrefetchOp::create(k.b, xMap, Value());
    nvgpu::TmaPrefetchOp::create(k.b, gMap, Value());
  });
  if (cluster > 1) {
    NVVM::ClusterArriveOp::create(k.b, k.b.getUnitAttr());
    NVVM::ClusterWaitOp::create(k.b, k.b.getUnitAttr());
  } else {
    k.barrier();
  }
  NVVM::GriddepcontrolOp::create(k.b, NVVM::GridDepActionKind::wait);
}

/// Byte offsets of stage `s`'s tiles in the operand ring.
Value xTileOffset(KernelBuilder &k, const WgmmaTypes &t, Value s) {
  return k.mul(s, k.idx(t.xTileBytes));
}
Value gTileOffset(KernelBuilder &k, const WgmmaTypes &t, Value s) {
  return k.add(k.idx(t.stages * t.xTileBytes), k.mul(s, k.idx(t.gTileBytes)));
}

/// Stage 2: the load of global k-step `step` (k-tile `it` of the tile whose
/// x rows start at `xRow0` and slices at `s0`) by one thread: waits until
/// the consumers released the step's stage in the previous round (in round 0
/// the wait on the "previous" phase, parity 1, passes at once), announces
/// the bytes on full[stage], and loads the x box and the g boxes with TMA.
/// In a cluster of `t.tiling.cluster` CTAs (`rank`: this CTA's) the CTAs
/// share the slice tile: box j of the g tile is loaded by CTA j % cluster
/// and multicast to all of them, at the same offset and with the same
/// barrier, so every CTA's full[stage] still counts the whole stage.
/// `part` splits a load of the ring's first round in two (the cooperative
/// kernel's x before its grid barrier, g after it): XOnly waits, announces
/// the whole stage's bytes and loads the x box; GOnly then loads the g
/// boxes, whose bytes complete the same phase of full[stage].
enum class TmaPart { Both, XOnly, GOnly };
void emitTmaLoad(KernelBuilder &k, const WgmmaTypes &t, Value smem, Value full,
                 Value empty, Value xMap, Value gMap, Value xRow0, Value s0,
                 Value it, Value step, Value rank = Value(),
                 TmaPart part = TmaPart::Both) {
  Value s = k.rem(step, k.idx(t.stages));
  if (part != TmaPart::GOnly) {
    Value one = arith::ConstantOp::create(k.b, k.b.getBoolAttr(true));
    Value round = k.div(step, k.idx(t.stages));
    Value parity =
        arith::XOrIOp::create(k.b,
                              arith::IndexCastOp::create(
                                  k.b, k.b.getI1Type(), k.rem(round, k.idx(2))),
                              one);
    nvgpu::MBarrierTryWaitParityOp::create(k.b, empty, parity, k.idx(10000000),
                                           s);
    nvgpu::MBarrierArriveExpectTxOp::create(
        k.b, full, k.idx(t.xTileBytes + t.gTileBytes), s, Value());
  }
  // The x column and the g row of the k-tile (equal without the split).
  Value k0 = k.mul(it, k.idx(t.tileK)), xK0 = k0;
  if (t.splitFeatures) {
    Value segment = k.div(k0, k.idx(t.splitFeatures));
    Value local = k.rem(k0, k.idx(t.splitFeatures));
    auto partOffset = [&](int64_t loSegment) {
      Value isLo = arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, segment,
                                         k.idx(loSegment));
      return k.add(local, k.select(isLo, k.idx(t.splitFeatures), k.idx(0)));
    };
    xK0 = partOffset(2);
    k0 = partOffset(1);
  }
  assert((t.tiling.cluster == 1 || !t.kMajorB) &&
         "clusters share the forward's N-major g boxes only");
  if (part != TmaPart::GOnly) {
    Value xTile = smemView(k, smem, xTileOffset(k, t, s),
                           t.tile({t.tiling.rows, t.tileK}, t.elem));
    nvgpu::TmaAsyncLoadOp::create(k.b, xTile, full, xMap,
                                  ValueRange{xK0, xRow0}, s, Value(), Value());
  }
  if (part == TmaPart::XOnly)
    return;
  if (t.kMajorB) {
    Value gTile = smemView(k, smem, gTileOffset(k, t, s),
                           t.tile({t.slices, t.tileK}, t.elem));
    nvgpu::TmaAsyncLoadOp::create(k.b, gTile, full, gMap, ValueRange{k0, s0}, s,
                                  Value(), Value());
    return;
  }
  int64_t cluster = t.tiling.cluster;
  Value mask = cluster > 1 ? arith::ConstantOp::create(
                                 k.b, k.b.getI16IntegerAttr((1 << cluster) - 1))
                                 .getResult()
                           : Value();
  for (int64_t i = 0; i < t.slices / kGBoxSlices / cluster; ++i) {
    Value j = k.idx(i * cluster);
    if (cluster > 1)
      j = k.add(j, rank);
    Value off =
        k.add(gTileOffset(k, t, s), k.mul(j, k.idx(t.tileK * kGBoxSlices * 2)));
    Value gBox = smemView(k, smem, off, t.tile({t.tileK, kGBoxSlices}, t.elem));
    nvgpu::TmaAsyncLoadOp::create(
        k.b, gBox, full, gMap,
        ValueRange{k.add(s0, k.mul(j, k.idx(kGBoxSlices))), k0}, s, mask,
        Value());
  }
}

/// Stage 2: the producer thread streams one tile's k-tiles through the
/// ring; `stepBase` counts the k-steps of the CTA's earlier tiles. The first
/// `xLoaded` k-tiles (of the ring's first round) already have their x boxes
/// in flight (TmaPart::XOnly): only their g boxes are loaded here.
void emitTmaProducer(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                     Value full, Value empty, Value xMap, Value gMap,
                     Value xRow0, Value s0, int64_t kTiles, Value stepBase,
                     Value rank = Value(), int64_t xLoaded = 0) {
  for (int64_t it = 0; it < xLoaded; ++it)
    emitTmaLoad(k, t, smem, full, empty, xMap, gMap, xRow0, s0, k.idx(it),
                k.add(stepBase, k.idx(it)), rank, TmaPart::GOnly);
  k.forEach(k.idx(xLoaded), k.idx(kTiles), k.idx(1), [&](Value it) {
    emitTmaLoad(k, t, smem, full, empty, xMap, gMap, xRow0, s0, it,
                k.add(stepBase, it), rank);
  });
}

/// The 64-bit wgmma matrix descriptor of an operand tile at byte `offset`
/// of the dynamic shared memory `smem` (PTX ISA, "matrix descriptor": start
/// address >> 4 in bits 0-13, leading byte offset >> 4 in bits 16-29, stride
/// byte offset >> 4 in bits 32-45, the layout in bits 62-63: 1 = 128-byte
/// swizzle, 2 = 64-byte swizzle). `lboField` is the encoded leading byte
/// offset (bytes >> 4: the step between 64-element groups of an M- or
/// N-major tile; K-major swizzled tiles ignore it, and upstream sets 1).
Value sharedMatrixDescriptor(KernelBuilder &k, Value smem, Value offset,
                             int64_t layout, int64_t lboField,
                             int64_t sboBytes) {
  Type i64 = k.b.getI64Type();
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(k.b, smem);
  Value addr =
      arith::IndexCastUIOp::create(k.b, i64, k.add(base, offset)).getResult();
  auto c = [&](int64_t v) {
    return arith::ConstantOp::create(k.b, k.b.getI64IntegerAttr(v));
  };
  Value start = arith::ShRUIOp::create(
      k.b, arith::AndIOp::create(k.b, addr, c(0x3FFFF)), c(4));
  int64_t fields = (layout << 62) | ((sboBytes >> 4) << 32) | (lboField << 16);
  return arith::OrIOp::create(k.b, start, c(fields));
}

/// The wait_group count of single-k16 op `j` of `ops` in a k-tile: the first
/// ops wait for nothing (at most ops + j + 1 groups pending), the last for
/// the previous k-tile's ops.
uint64_t kTileWaitGroup(int64_t j, int64_t ops) {
  return j + 1 == ops ? ops : ops + j + 1;
}

/// emitKTileMma with a K-major B tile [t.slices][64 k] (128-byte swizzle,
/// like the x tile): one k16 wgmma per 16-deep step, both descriptors
/// generated 32 bytes further along the rows for each step (upstream steps
/// the B descriptor by whole rows, right only for an N-major B).
Value emitKMajorKTileMma(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                         Value xMap, Value gMap, Value xOff, Value gOff,
                         Value acc) {
  MLIRContext *ctx = k.b.getContext();
  int64_t ops = t.tileK / 16;
  auto xDescType =
      nvgpu::WarpgroupMatrixDescriptorType::get(ctx, t.tile({64, 16}, t.elem));
  auto gDescType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, t.tile({16, t.slices}, t.elem));
  for (int64_t j = 0; j < ops; ++j) {
    Value xAt = k.add(xOff, k.idx(j * 32));
    Value gAt = k.add(gOff, k.idx(j * 32));
    Value xDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
        k.b, xDescType, smemView(k, smem, xAt, t.tile({64, 16}, t.elem)), xMap);
    Value gDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
        k.b, gDescType, smemView(k, smem, gAt, t.tile({16, t.slices}, t.elem)),
        gMap);
    acc = nvgpu::WarpgroupMmaOp::create(k.b, t.acc, xDesc, gDesc,
                                        kTileWaitGroup(j, ops),
                                        /*transposeA=*/UnitAttr(),
                                        /*transposeB=*/UnitAttr(), acc);
  }
  return acc;
}

/// The MMAs of one 64-deep k-tile: this warpgroup's 64 rows of the x tile
/// at byte `xOff` times the g tile at `gOff`, added to `acc`,
/// asynchronously, as one nvgpu.warpgroup.mma (4 x k16, upstream steps the
/// descriptors); returns once the previous k-tile's MMAs are complete.
Value emitKTileMma(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                   Value xMap, Value gMap, Value xOff, Value gOff, Value acc) {
  MLIRContext *ctx = k.b.getContext();
  if (t.kMajorB)
    return emitKMajorKTileMma(k, t, smem, xMap, gMap, xOff, gOff, acc);
  auto xDescType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, t.tile({64, t.tileK}, t.elem));
  auto gDescType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, t.tile({t.tileK, t.slices}, t.elem));
  Value gTile = smemView(k, smem, gOff, t.tile({t.tileK, t.slices}, t.elem));
  Value xDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
      k.b, xDescType, smemView(k, smem, xOff, t.tile({64, t.tileK}, t.elem)),
      xMap);
  Value gDesc =
      nvgpu::WarpgroupGenerateDescriptorOp::create(k.b, gDescType, gTile, gMap);
  return nvgpu::WarpgroupMmaOp::create(k.b, t.acc, xDesc, gDesc,
                                       kTileWaitGroup(0, 1),
                                       /*transposeA=*/UnitAttr(),
                                       /*transposeB=*/k.b.getUnitAttr(), acc);
}

/// One arrive on barrier `s` of `group` in each of the `cluster` CTAs of
/// the cluster: nvvm.mapa of the barrier's shared address to each CTA's,
/// then an arrive with the default release.cta semantics (the wgmma reads of
/// the stage are complete; a release.cluster arrive made every k-tile wait
/// for it: large 0.52 -> 0.67 ms, docs/PERF-NOTES.md c2).
void arriveInCluster(KernelBuilder &k, Value group, Value s, int64_t cluster) {
  MLIRContext *ctx = k.b.getContext();
  Value addr =
      nvgpu::MBarrierGetOp::create(k.b, k.b.getI32Type(), group, s).getResult();
  Value local = LLVM::IntToPtrOp::create(
      k.b,
      LLVM::LLVMPointerType::get(
          ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      addr);
  auto clusterPtr = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  for (int64_t r = 0; r < cluster; ++r) {
    Value remote = NVVM::MapaOp::create(k.b, clusterPtr, local, i32Const(k, r));
    NVVM::MBarrierArriveOp::create(k.b, Type(), remote, Value(),
                                   NVVM::MemScopeKind::CTA, false);
  }
}

/// One k-tile of stage 3 at ring stage `s` (phase `parity`) of global k-step
/// `step`: waits for the stage's data, issues its MMAs into `acc` and, once
/// the previous k-tile's MMAs are complete, hands the previous stage back to
/// the producer (only if `hasPrevious`).
Value emitMainloopKTile(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                        Value full, Value empty, Value xMap, Value gMap,
                        Value wgOffset, Value primary, Value s, Value prevS,
                        Value parity, Value hasPrevious, Value acc) {
  MLIRContext *ctx = k.b.getContext();
  nvgpu::MBarrierTryWaitParityOp::create(k.b, full, parity, k.idx(10000000), s);
  Value next = emitKTileMma(k, t, smem, xMap, gMap,
                            k.add(xTileOffset(k, t, s), wgOffset),
                            gTileOffset(k, t, s), acc);
  // The MMAs of the previous k-tile are complete: hand its stage back to the
  // producer (in a cluster, to every CTA's producer: their multicast writes
  // into it).
  k.ifThen(k.land(primary, hasPrevious), [&] {
    if (t.tiling.cluster > 1)
      return arriveInCluster(k, empty, prevS, t.tiling.cluster);
    nvgpu::MBarrierArriveOp::create(k.b, nvgpu::MBarrierTokenType::get(ctx),
                                    empty, prevS);
  });
  return next;
}

/// Whether a cluster's consumers hand back k-step `step` of a mainloop of
/// `kTiles` k-steps: not the last `stages` steps, which no producer waits
/// for. So no CTA arrives on a peer's barrier after that peer's producer is
/// done, and a CTA may exit without a cluster barrier: every remote arrive
/// and multicast write it receives is one its own threads wait for.
bool releasedInCluster(const WgmmaTypes &t, int64_t step, int64_t kTiles) {
  return t.tiling.cluster == 1 || step < kTiles - t.stages;
}

/// The LLVM struct convert-nvgpu-to-nvvm makes of the accumulator type
/// t.acc (vector<64 x slices>: one m64 row block of slices / 2 f32 per
/// thread): the promoted sums' view of it, through casts that fold away
/// there.
Type accumulatorStruct(MLIRContext *ctx, const WgmmaTypes &t) {
  auto inner = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(t.slices / 2, Float32Type::get(ctx)));
  return LLVM::LLVMStructType::getLiteral(ctx, {inner});
}

/// Stage 3b (t.tiling.promote): `promoted` (empty before the first
/// promotion) plus the thread's f32 values of `acc`, once its MMAs are
/// complete (wgmma.wait_group 0): round-to-nearest adds, outside the
/// tensor cores' truncating accumulation.
SmallVector<Value> promoteAccumulator(KernelBuilder &k, const WgmmaTypes &t,
                                      ArrayRef<Value> promoted, Value acc) {
  NVVM::WgmmaWaitGroupSyncOp::create(k.b, 0);
  Value view = UnrealizedConversionCastOp::create(
                   k.b, accumulatorStruct(k.b.getContext(), t), acc)
                   .getResult(0);
  SmallVector<Value> sums;
  for (int64_t i = 0; i < t.slices / 2; ++i) {
    Value v = LLVM::ExtractValueOp::create(k.b, view, ArrayRef<int64_t>{0, i});
    sums.push_back(promoted.empty() ? v : k.addf(promoted[i], v));
  }
  return sums;
}

/// The accumulator of `values` (promoteAccumulator's sums), for stage 4's
/// store.
Value promotedAccumulator(KernelBuilder &k, const WgmmaTypes &t,
                          ArrayRef<Value> values) {
  Type type = accumulatorStruct(k.b.getContext(), t);
  Value view = LLVM::UndefOp::create(k.b, type);
  for (auto [i, v] : llvm::enumerate(values))
    view = LLVM::InsertValueOp::create(
        k.b, view, v, ArrayRef<int64_t>{0, static_cast<int64_t>(i)});
  return UnrealizedConversionCastOp::create(k.b, t.acc, view).getResult(0);
}

/// Whether stage 3 of a mainloop of `kTiles` k-tiles is emitted unrolled:
/// only where ptxas keeps the unrolled descriptors in registers without
/// spilling (checked on every configuration of the GPU validation sets):
/// the 64-slice tile with one CTA per multiprocessor (its 32 accumulators
/// leave room), or a ring visited at most twice.
/// Not with promoted sums: unrolled, their 32 values live beside the
/// constant descriptors spilled (2.3 KB at mid, per-slice, promote = 4).
bool unrollsMainloop(const WgmmaTypes &t, int64_t kTiles) {
  if (kTiles > kUnrolledKTiles || t.tiling.promote)
    return false;
  return (t.slices <= 64 && t.tiling.ctasPerSM == 1) || kTiles <= 2 * t.stages;
}

/// Stage 3 unrolled: every k-tile has a constant stage and phase, so its shared
/// memory offsets, descriptors and barrier addresses are constants (ncu at mid:
/// the rolled loop issued about 70 instructions per k-tile to compute them,
/// against 4 wgmma ops; unrolled, mid takes 3% less and the split-operand
/// mainloops 8-9%: docs/PERF-NOTES.md u1).
Value emitUnrolledWgmmaMainloop(KernelBuilder &k, const WgmmaTypes &t,
                                Value smem, Value full, Value empty, Value xMap,
                                Value gMap, Value wg, Value primary,
                                int64_t kTiles) {
  Value one = arith::ConstantOp::create(k.b, k.b.getBoolAttr(true));
  Value wgOffset = k.mul(wg, k.idx(64 * t.tileK * 2));
  Value acc = nvgpu::WarpgroupMmaInitAccumulatorOp::create(k.b, t.acc);
  Value parity = arith::ConstantOp::create(k.b, k.b.getBoolAttr(false));
  assert(!t.tiling.promote && "promoted sums keep the mainloop rolled");
  for (int64_t i = 0; i < kTiles; ++i) {
    int64_t s = i % t.stages;
    acc = emitMainloopKTile(
        k, t, smem, full, empty, xMap, gMap, wgOffset, primary, k.idx(s),
        k.idx((s + t.stages - 1) % t.stages), parity,
        arith::ConstantOp::create(
            k.b, k.b.getBoolAttr(i > 0 && releasedInCluster(t, i - 1, kTiles))),
        acc);
    if (s == t.stages - 1)
      parity = arith::XOrIOp::create(k.b, parity, one);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(k.b, 0);
  return acc;
}

/// Stage 3 of a one-tile kernel: warpgroup `wg` (0 or 1) multiplies its 64
/// rows of every x tile with the whole g tile, from ring step 0 in phase 0.
/// Each k-tile's MMAs run asynchronously; once the previous k-tile's are
/// complete its stage goes back to the producer. Returns the accumulator.
Value emitWgmmaMainloop(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                        Value full, Value empty, Value xMap, Value gMap,
                        Value wg, Value primary, int64_t kTiles) {
  if (unrollsMainloop(t, kTiles))
    return emitUnrolledWgmmaMainloop(k, t, smem, full, empty, xMap, gMap, wg,
                                     primary, kTiles);
  Value one = arith::ConstantOp::create(k.b, k.b.getBoolAttr(true));
  Value init = nvgpu::WarpgroupMmaInitAccumulatorOp::create(k.b, t.acc);
  Value wgOffset = k.mul(wg, k.idx(64 * t.tileK * 2));
  SmallVector<Value> inits = {
      init, arith::ConstantOp::create(k.b, k.b.getBoolAttr(false))};
  // With promotion the loop also carries the promoted sums (from zero).
  int64_t U = t.tiling.promote;
  if (U)
    inits.append(t.slices / 2, k.f32(0.0f));
  SmallVector<Value> results = k.forEach(
      k.idx(0), k.idx(kTiles), k.idx(1), inits,
      [&](Value step, ValueRange carried) {
        Value acc = carried[0], parity = carried[1];
        Value s = k.rem(step, k.idx(t.stages));
        // In a cluster (one-tile kernels: the steps are the k-tiles) the
        // last `stages` steps stay (releasedInCluster).
        Value hasPrevious = k.lt(k.idx(0), step);
        if (t.tiling.cluster > 1)
          hasPrevious =
              k.land(hasPrevious, k.lt(step, k.idx(kTiles - t.stages + 1)));
        Value next = emitMainloopKTile(
            k, t, smem, full, empty, xMap, gMap, wgOffset, primary, s,
            k.rem(k.sub(step, k.idx(1)), k.idx(t.stages)), parity, hasPrevious,
            acc);
        Value wraps = arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, s,
                                            k.idx(t.stages - 1));
        Value flipped = arith::XOrIOp::create(k.b, parity, one);
        SmallVector<Value> yielded = {next, k.select(wraps, flipped, parity)};
        if (!U)
          return yielded;
        // Every U-th k-tile: the sums promoted, the MMAs restarted from
        // zero (the last k-tile's are promoted after the loop).
        Value promote = arith::CmpIOp::create(
            k.b, arith::CmpIPredicate::eq,
            k.rem(k.add(step, k.idx(1)), k.idx(U)), k.idx(0));
        ValueRange promoted = carried.drop_front(2);
        SmallVector<Type> types = {t.acc};
        types.append(promoted.size(), k.b.getF32Type());
        auto ifOp = scf::IfOp::create(k.b, types, promote,
                                      /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(k.b);
          k.b.setInsertionPointToStart(ifOp.thenBlock());
          SmallVector<Value> then = {
              nvgpu::WarpgroupMmaInitAccumulatorOp::create(k.b, t.acc)};
          llvm::append_range(
              then, promoteAccumulator(k, t, llvm::to_vector(promoted), next));
          scf::YieldOp::create(k.b, then);
          k.b.setInsertionPointToStart(ifOp.elseBlock());
          SmallVector<Value> otherwise = {next};
          llvm::append_range(otherwise, promoted);
          scf::YieldOp::create(k.b, otherwise);
        }
        yielded[0] = ifOp.getResult(0);
        llvm::append_range(yielded, ifOp.getResults().drop_front());
        return yielded;
      });
  if (U)
    return promotedAccumulator(
        k, t,
        promoteAccumulator(k, t,
                           llvm::to_vector(ValueRange(results).drop_front(2)),
                           results[0]));
  NVVM::WgmmaWaitGroupSyncOp::create(k.b, 0);
  return results[0];
}

/// The y tile [rows][slices] f32 at byte `offset`: a view of rows padded to
/// slices + kYRowPad words (strided<[slices + kYRowPad, 1]>).
Value yTileView(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                int64_t offset, int64_t rows) {
  Value padded =
      smemView(k, smem, k.idx(offset),
               t.tile({kRows, t.slices + kYRowPad}, k.b.getF32Type()));
  return memref::SubViewOp::create(
      k.b, padded,
      ArrayRef<OpFoldResult>{k.b.getIndexAttr(0), k.b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{k.b.getIndexAttr(rows),
                             k.b.getIndexAttr(t.slices)},
      ArrayRef<OpFoldResult>{k.b.getIndexAttr(1), k.b.getIndexAttr(1)});
}

/// Stage 4: both warpgroups store their accumulators into the shared y tile
/// [128][256] f32 (rows padded, yTileView) at `offset`, once every consumer
/// is done reading the ring.
/// nvgpu.warpgroup.mma.store places a thread's rows by its warp index in the
/// CTA (tid / 32): warps 4-7 of warpgroup 1 land on rows 64-127 of the view,
/// so both warpgroups pass the same view of the tile's first 64 rows.
Value emitAccumulatorTile(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                          Value acc, int64_t offset = 0) {
  consumerBarrier(k);
  Value firstRows = yTileView(k, t, smem, offset, 64);
  nvgpu::WarpgroupMmaStoreOp::create(k.b, acc, firstRows);
  consumerBarrier(k);
  return yTileView(k, t, smem, offset, kRows);
}

/// Factor from an accumulator of slice `s` to its first angle: dt / ||g_s||
/// for a seeded projection (the per-chunk sums of g^2 added in chunk order),
/// dt for an explicit one.
Value emitColumnScale(KernelBuilder &k, const WgmmaEcfShape &sh, Value sumSq,
                      Value s) {
  Value scale = k.f32(static_cast<float>(sh.tMax / double(sh.numPoints - 1)));
  if (!sh.seeded)
    return scale;
  Value sc = k.min(s, k.idx(sh.numSlices - 1));
  Value sum;
  if (sh.normChunks <= kUnrolledNormChunks) {
    // Every load first (one memory latency, not one per unrolled group),
    // then the adds in chunk order.
    SmallVector<Value> parts;
    for (int64_t c = 0; c < sh.normChunks; ++c)
      parts.push_back(k.load(sumSq, {k.idx(c), sc}));
    sum = k.f32(0.0f);
    for (Value part : parts)
      sum = k.addf(sum, part);
  } else {
    sum = k.forEach(
        k.idx(0), k.idx(sh.normChunks), k.idx(1), {k.f32(0.0f)},
        [&](Value c, ValueRange carried) {
          return SmallVector<Value>{k.addf(carried[0], k.load(sumSq, {c, sc}))};
        })[0];
  }
  // y = acc / ||g_s||, folded into the angle: dt * (acc / norm).
  return k.divf(scale, math::SqrtOp::create(k.b, sum));
}

/// Adds row `row`, column `col` of the y tile to the ECF sums of p = 1..P-1
/// (cos sums, then sin sums; p = 0 is cos = 1, sin = 0: the row count).
SmallVector<Value> emitEcfRow(KernelBuilder &k, int64_t P, Value yTile,
                              Value row, Value col, Value scale,
                              ValueRange sums) {
  SmallVector<Value> next(sums.begin(), sums.end());
  Value theta = k.mulf(k.load(yTile, {row, col}), scale);
  forEachHarmonic(k, P, theta, [&](int64_t p, Value c, Value sn) {
    next[p - 1] = k.addf(next[p - 1], c);
    next[P - 1 + p - 1] = k.addf(next[P - 1 + p - 1], sn);
  });
  return next;
}

/// Adds rows `row` and `row + 1` of column `col` to the ECF sums as
/// emitEcfRow does, through forEachHarmonicPair (`halfScale` = scale / 2).
SmallVector<Value> emitEcfRowPair(KernelBuilder &k, int64_t P, Value yTile,
                                  Value row, Value col, Value halfScale,
                                  ValueRange sums) {
  SmallVector<Value> next(sums.begin(), sums.end());
  Value ya = k.load(yTile, {row, col});
  Value yb = k.load(yTile, {k.add(row, k.idx(1)), col});
  forEachHarmonicPair(k, P, ya, yb, halfScale,
                      [&](int64_t p, Value c, Value sn, Value w) {
                        next[p - 1] = k.fma(c, w, next[p - 1]);
                        next[P - 1 + p - 1] = k.fma(sn, w, next[P - 1 + p - 1]);
                      });
  return next;
}

/// The ECF sums of column `col` over rows [row0, row0 + count) of the y tile
/// (added to `sums0` if given): `rowsPerStep` rows per iteration
/// (independent recurrences interleaved; two rows at a time through
/// emitEcfRowPair when rowsPerStep is even), then the remainder one by one.
SmallVector<Value> emitEcfRows(KernelBuilder &k, int64_t P, Value yTile,
                               Value row0, Value count, Value col, Value scale,
                               int64_t rowsPerStep, ValueRange sums0 = {}) {
  Value countN = arith::AndIOp::create(k.b, count, k.idx(~(rowsPerStep - 1)));
  SmallVector<Value> init(2 * (P - 1), k.f32(0.0f));
  if (!sums0.empty())
    init.assign(sums0.begin(), sums0.end());
  Value halfScale = k.mulf(scale, k.f32(0.5f));
  SmallVector<Value> sums = k.forEach(
      k.idx(0), countN, k.idx(rowsPerStep), init,
      [&](Value r, ValueRange carried) {
        SmallVector<Value> next(carried.begin(), carried.end());
        if (rowsPerStep % 2 == 0) {
          for (int64_t h = 0; h < rowsPerStep; h += 2)
            next = emitEcfRowPair(k, P, yTile, k.add(row0, k.add(r, k.idx(h))),
                                  col, halfScale, next);
          return next;
        }
        for (int64_t h = 0; h < rowsPerStep; ++h)
          next = emitEcfRow(k, P, yTile, k.add(row0, k.add(r, k.idx(h))), col,
                            scale, next);
        return next;
      });
  return k.forEach(
      countN, count, k.idx(1), sums, [&](Value r, ValueRange carried) {
        return emitEcfRow(k, P, yTile, k.add(row0, r), col, scale, carried);
      });
}

/// acc[indices] += round(value * 2^kWgmmaSumFractionBits) with a relaxed
/// 64-bit integer atomic. The scaling is exact (a power of two) and so is the
/// conversion of f32 sums of magnitude >= 2^-9 (their last bit is at least
/// 2^-32); smaller ones round to 2^-33 at worst.
void atomicFixedPointAdd(KernelBuilder &k, Value value, Value acc,
                         ValueRange indices) {
  Value scaled = math::RoundEvenOp::create(
      k.b, k.mulf(value, k.f32(std::ldexp(1.0f, int(kWgmmaSumFractionBits)))));
  Value fixed = arith::FPToSIOp::create(k.b, k.b.getI64Type(), scaled);
  memref::AtomicRMWOp::create(k.b, arith::AtomicRMWKind::addi, fixed, acc,
                              indices);
}

/// Writes a tile's ECF sums of slice `s` over `count` rows (an index, or
/// an f32): the means when the kernel writes one sum per slice
/// (numTileSums), else the partial sums at slot `batchTile` (with
/// atomicSums added to the fixed-point accumulators:
/// atomicFixedPointAdd).
void emitEcfStore(KernelBuilder &k, const WgmmaEcfShape &sh,
                  ArrayRef<Value> sums, Value count, Value s, Value v,
                  Value batchTile, Value cosOut, Value sinOut) {
  int64_t P = sh.numPoints;
  Value countF =
      isa<IndexType>(count.getType())
          ? arith::UIToFPOp::create(
                k.b, k.b.getF32Type(),
                arith::IndexCastUIOp::create(k.b, k.b.getI32Type(), count))
                .getResult()
          : count;
  Value batchF = k.f32(static_cast<float>(sh.batch));
  bool oneTile = sh.numTileSums() == 1;
  for (int64_t p = 0; p < P; ++p) {
    Value c = p == 0 ? countF : sums[p - 1];
    Value sn = p == 0 ? k.f32(0.0f) : sums[P - 1 + p - 1];
    if (oneTile) {
      k.store(k.divf(c, batchF), cosOut, {v, s, k.idx(p)});
      k.store(k.divf(sn, batchF), sinOut, {v, s, k.idx(p)});
    } else if (sh.atomicSums) {
      atomicFixedPointAdd(k, c, cosOut, {v, k.idx(p), s});
      if (p > 0) // sin(0) = 0: the accumulator stays zero
        atomicFixedPointAdd(k, sn, sinOut, {v, k.idx(p), s});
    } else {
      k.store(c, cosOut, {batchTile, v, k.idx(p), s});
      k.store(sn, sinOut, {batchTile, v, k.idx(p), s});
    }
  }
}

/// How the 256 consumer threads split a y tile for a per-slice stage:
/// `parts` groups of t.slices threads; thread `tid` owns column `col` =
/// tid % t.slices (slice s0 + col) and the rows [row0, row0 + partCount) of
/// part tid / t.slices among the `count` = min(128, N - m0) (> 0) rows of
/// the tile inside the batch.
struct ColumnPart {
  int64_t parts;
  Value col, part, s, count, row0, partCount;
};

/// The thread's column, part and slice (count, row0 and partCount come from
/// splitRows, emitted where the stage needs them).
ColumnPart splitColumns(KernelBuilder &k, const WgmmaTypes &t, Value tid,
                        Value s0) {
  ColumnPart c;
  c.parts = kConsumerThreads / t.slices;
  c.col = k.rem(tid, k.idx(t.slices));
  c.part = k.div(tid, k.idx(t.slices));
  c.s = k.add(s0, c.col);
  return c;
}

/// The rows of [row0, row0 + cap) below `count`: min(max(count - row0, 0),
/// cap).
Value rowsBelow(KernelBuilder &k, Value count, Value row0, int64_t cap) {
  return arith::MinSIOp::create(
      k.b,
      arith::MaxSIOp::create(k.b, arith::SubIOp::create(k.b, count, row0),
                             k.idx(0)),
      k.idx(cap));
}

/// The rows of `c`'s part in the tile whose first batch row is m0.
void splitRows(KernelBuilder &k, ColumnPart &c, int64_t N, Value m0) {
  int64_t partRows = kRows / c.parts;
  c.count = k.min(k.idx(kRows), arith::SubIOp::create(k.b, k.idx(N), m0));
  c.row0 = k.mul(c.part, k.idx(partRows));
  c.partCount = rowsBelow(k, c.count, c.row0, partRows);
}

/// Stage 5: the 256 consumer threads as `parts` groups of t.slices threads;
/// thread `tid` sums slice s0 + tid % t.slices over its part of the tile's
/// rows (rows [part * 128 / parts, ...) inside the batch), kEcfRowsPerStep
/// rows per iteration; with several parts, the other parts' sums are added to
/// the first's through shared memory in part order (a fixed order). The first
/// part writes the tile's sums. `scale`: the column's emitColumnScale,
/// computed before the mainloop.
void emitEcfColumns(KernelBuilder &k, const WgmmaTypes &t,
                    const WgmmaEcfShape &sh, Value smem, Value yTile,
                    Value scale, Value cosOut, Value sinOut, Value tid,
                    Value s0, Value m0, Value v, Value batchTile) {
  int64_t P = sh.numPoints, S = sh.numSlices;
  ColumnPart c = splitColumns(k, t, tid, s0);
  Value col = c.col, s = c.s;
  splitRows(k, c, sh.batch, m0);
  Value count = c.count;
  SmallVector<Value> sums = emitEcfRows(k, P, yTile, c.row0, c.partCount, col,
                                        scale, kEcfRowsPerStep);

  Value first = k.lt(c.part, k.idx(1));
  if (c.parts > 1) {
    // The y tile is read: reuse the dynamic shared memory for the other
    // parts' sums [parts - 1][2 (P - 1)][t.slices] (at most the ring's size
    // for P <= 65, wgmmaObstacle).
    auto sumsType = MemRefType::get({c.parts - 1, 2 * (P - 1), t.slices},
                                    k.b.getF32Type(), nullptr, t.workgroup);
    Value partSums = smemView(k, smem, k.idx(0), sumsType);
    consumerBarrier(k);
    Value second = arith::XOrIOp::create(
        k.b, first, arith::ConstantOp::create(k.b, k.b.getBoolAttr(true)));
    k.ifThen(second, [&] {
      Value slot = k.sub(c.part, k.idx(1));
      for (auto [i, sum] : llvm::enumerate(sums))
        k.store(sum, partSums, {slot, k.idx(i), col});
    });
    consumerBarrier(k);
    auto ifOp = scf::IfOp::create(
        k.b, TypeRange(SmallVector<Type>(sums.size(), k.b.getF32Type())), first,
        /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(k.b);
      k.b.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> total(sums.begin(), sums.end());
      for (int64_t part = 1; part < c.parts; ++part)
        for (auto [i, sum] : llvm::enumerate(total))
          sum = k.addf(sum, k.load(partSums, {k.idx(part - 1), k.idx(i), col}));
      scf::YieldOp::create(k.b, total);
      k.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(k.b, sums);
    }
    sums = SmallVector<Value>(ifOp.getResults());
  }
  k.ifThen(k.land(first, k.lt(s, k.idx(S))), [&] {
    emitEcfStore(k, sh, sums, count, s, v, batchTile, cosOut, sinOut);
  });
}

/// Calls `row(r)` for r in [row0, row0 + count): `step` rows per iteration
/// (independent rows the scheduler can interleave), then the remainder.
void forEachRow(KernelBuilder &k, Value row0, Value count, int64_t step,
                function_ref<void(Value)> row) {
  Value countN = arith::AndIOp::create(k.b, count, k.idx(~(step - 1)));
  k.forEach(k.idx(0), countN, k.idx(step), [&](Value r) {
    for (int64_t h = 0; h < step; ++h)
      row(k.add(row0, k.add(r, k.idx(h))));
  });
  k.forEach(countN, count, k.idx(1), [&](Value r) { row(k.add(row0, r)); });
}

/// 1 / ||g_s|| of slice `s` (the per-chunk sums of g^2 added in chunk
/// order, as emitColumnScale), 1 for an explicit projection.
Value emitInverseNorm(KernelBuilder &k, const WgmmaEcfShape &sh, Value sumSq,
                      Value s) {
  double dt = sh.tMax / double(sh.numPoints - 1);
  return k.mulf(emitColumnScale(k, sh, sumSq, s),
                k.f32(static_cast<float>(1.0 / dt)));
}

/// Stage 4b (forward with storeSlices): the 256 consumer threads, split as
/// in emitEcfColumns, write their rows of the y tile, divided by the column
/// norm, to the slices [V * N, S] at row xRow0 + row (consecutive threads,
/// consecutive slices: coalesced); with slicesPhase the i16 phase of the
/// angle dt y the ECF stage forms (encodePhase). Slices past S compute on
/// slice S - 1 and store nothing (only the store is guarded: divergent code
/// after the wgmmas would serialize them, C7520).
void emitSliceStore(KernelBuilder &k, const WgmmaTypes &t,
                    const WgmmaEcfShape &sh, Value yTile, Value sumSq,
                    Value slicesOut, Value tid, Value s0, Value m0,
                    Value xRow0) {
  ColumnPart c = splitColumns(k, t, tid, s0);
  Value sc = k.min(c.s, k.idx(sh.numSlices - 1));
  Value inSlices = k.lt(c.s, k.idx(sh.numSlices));
  // The phase's angle is the ECF's (emitColumnScale: dt / ||g_s||).
  Value scale = sh.slicesPhase ? emitColumnScale(k, sh, sumSq, sc)
                               : emitInverseNorm(k, sh, sumSq, sc);
  splitRows(k, c, sh.batch, m0);
  forEachRow(k, c.row0, c.partCount, kRowsPerStep, [&](Value row) {
    Value y = k.mulf(k.load(yTile, {row, c.col}), scale);
    if (sh.slicesPhase)
      y = encodePhase(k, y);
    k.ifThen(inSlices, [&] {
      k.store(y, slicesOut, {k.add(xRow0, row), c.s});
    });
  });
}

/// The coefficients of emitGradValue for slice `sc` of view `v` from the
/// cotangent buffers dcos, dsin [V, S, P].
GradCoefficients emitGradCoefficients(KernelBuilder &k, const WgmmaEcfShape &sh,
                                      Value scale, Value dcos, Value dsin,
                                      Value v, Value sc) {
  SmallVector<Value> dcosP = {Value()}, dsinP = {Value()};
  for (int64_t p = 1; p < sh.numPoints; ++p) {
    dsinP.push_back(k.load(dsin, {v, sc, k.idx(p)}));
    dcosP.push_back(k.load(dcos, {v, sc, k.idx(p)}));
  }
  return gradCoefficientsFrom(k, sh.numPoints, sh.tMax, sh.batch, scale, dcosP,
                              dsinP);
}

/// Stage 5 of the backward kernel sigreg_ecf_grad_wgmma: the 256 consumer
/// threads split the y tile as in emitEcfColumns (thread tid owns slice
/// s0 + tid % t.slices and its part of the rows). A thread holds its slice's
/// 2 (P - 1) coefficients a_p = t_p dsin[v, s, p] / (N ||g_s||) and b_p =
/// t_p dcos[v, s, p] / (N ||g_s||) (no norm for an explicit projection) in
/// registers; per row, one range-reduced sincos and the Chebyshev recurrence
/// give G = sum_p a_p cos(t_p y) - b_p sin(t_p y) = dL/dy / ||g_s||, stored
/// in the input's 16-bit type at [xRow0 + row, s] of `gradOut` [V * N, S]
/// (consecutive threads write consecutive slices).
void emitEcfGradColumns(KernelBuilder &k, const WgmmaTypes &t,
                        const WgmmaEcfShape &sh, Value yTile, Value sumSq,
                        Value dcos, Value dsin, Value gradOut, Value tid,
                        Value s0, Value m0, Value v, Value xRow0) {
  int64_t P = sh.numPoints, N = sh.batch, S = sh.numSlices;
  ColumnPart c = splitColumns(k, t, tid, s0);
  Value col = c.col, s = c.s;
  // Slices past S (the last tile's) compute on slice S - 1 and store
  // nothing: a branch around the whole stage would be divergent code after
  // the wgmmas, which makes ptxas serialize them (C7520).
  Value sc = k.min(s, k.idx(S - 1));
  Value inSlices = k.lt(s, k.idx(S));
  Value scale = emitColumnScale(k, sh, sumSq, sc);
  GradCoefficients coef = emitGradCoefficients(k, sh, scale, dcos, dsin, v, sc);
  splitRows(k, c, N, m0);
  forEachRow(k, c.row0, c.partCount, kRowsPerStep, [&](Value row) {
    Value theta = k.mulf(k.load(yTile, {row, col}), scale);
    Value g = emitGradValue(k, P, theta, coef);
    Value gs = arith::TruncFOp::create(k.b, t.elem, g);
    Value at = k.add(xRow0, row);
    k.ifThen(inSlices, [&] { k.store(gs, gradOut, {at, s}); });
  });
}

/// The epilogue of the backward GEMM: the accumulator tile, staged in the y
/// tile, goes to dx [rows, D] (f32, or rounded to 16 bits; times `scale`
/// when given). Thread tid (< 256) takes column
/// tid % t.slices and the rows part, part + parts, ... (parts = 256 /
/// t.slices; consecutive threads, consecutive columns: coalesced). No thread
/// branches and a constant trip count (128 / parts rows per thread): a row or
/// column past the problem is clamped to the last one inside it, whose value
/// the thread then stores again (the same value to the same address). A
/// guarded store, or a trip count known only at run time, after the wgmmas
/// made ptxas serialize them in the 64- and 128-feature tiles (C7520).
void emitTileStore(KernelBuilder &k, const WgmmaTypes &t, Value yTile, Value dx,
                   Value tid, Value r0, Value d0, int64_t rows, int64_t D,
                   Value scale) {
  Type outElement = cast<MemRefType>(dx.getType()).getElementType();
  ColumnPart c = splitColumns(k, t, tid, d0);
  Value col = c.col;
  if (D % t.slices != 0)
    col = k.min(col, arith::SubIOp::create(k.b, k.idx(D - 1), d0));
  Value count =
      k.min(k.idx(kRows), arith::SubIOp::create(k.b, k.idx(rows), r0));
  Value lastRow = arith::SubIOp::create(k.b, count, k.idx(1));
  k.forEach(k.idx(0), k.idx(kRows / c.parts), k.idx(1), [&](Value i) {
    Value row = k.min(k.add(c.part, k.mul(i, k.idx(c.parts))), lastRow);
    Value value = k.load(yTile, {row, col});
    if (scale)
      value = k.mulf(value, scale);
    if (!outElement.isF32())
      value = arith::TruncFOp::create(k.b, outElement, value);
    k.store(value, dx, {k.add(r0, row), k.add(d0, col)});
  });
}
/// The tail's shared memory, a view of the dynamic shared memory once the
/// ECF stage is done with it: the arrival flag (i32, byte 0) and the
/// tree-sum buffer (kConsumerThreads f32 from byte 16).
struct TailScratch {
  Value flag, red;
  /// The gathered means of the CTA's slices, [1][slices][P] each, where they
  /// fit the dynamic shared memory (null otherwise: the statistics then read
  /// the global means; today's rings always leave room, up to P = 65): the
  /// statistics read them there instead of from global memory, an L2 round
  /// trip after the stores.
  Value cosLocal, sinLocal;
  TailScratch(KernelBuilder &k, const WgmmaTypes &t, const WgmmaEcfShape &sh,
              Value smem) {
    flag = smemView(k, smem, k.idx(0), t.tile({1}, k.b.getI32Type()));
    red = smemView(k, smem, k.idx(16),
                   t.tile({kConsumerThreads}, k.b.getF32Type()));
    int64_t meanBytes = t.slices * sh.numPoints * 4;
    if (kTailMeansOffset + 2 * meanBytes > wgmmaDynamicSharedBytes(sh.tiling))
      return;
    MemRefType means = t.tile({1, t.slices, sh.numPoints}, k.b.getF32Type());
    cosLocal = smemView(k, smem, k.idx(kTailMeansOffset), means);
    sinLocal = smemView(k, smem, k.idx(kTailMeansOffset + meanBytes), means);
  }
};

/// Stage 6a (foldFinalize, run by the last CTA of a (view, slice tile)): the
/// consumer threads, split as in emitEcfColumns, add the T batch tiles' sums
/// of slice s0 + col (cos[t, v, p, s], in ascending t from 0, as
/// sigreg_ecf_finalize does) for the points p = part, part + parts, ... and
/// store them divided by N as the means [V, S, P], and into the scratch's
/// shared [1][slices][P] means where it has them. The loads of a group of
/// points (at most kTailLoadsInFlight) are all issued before its adds.
void emitGatherBatchTiles(KernelBuilder &k, const WgmmaTypes &t,
                          const WgmmaEcfShape &sh, const TailScratch &scratch,
                          Value cosPart, Value sinPart, Value cosMean,
                          Value sinMean, Value tid, Value s0, Value v) {
  int64_t P = sh.numPoints, T = sh.numBatchTiles();
  ColumnPart c = splitColumns(k, t, tid, s0);
  int64_t perThread = (P + c.parts - 1) / c.parts;
  // The mean of point p of the thread's slice, to global and shared memory.
  auto storeMean = [&](Value mean, Value global, Value local, Value p) {
    k.store(mean, global, {v, c.s, p});
    if (local)
      k.store(mean, local, {k.idx(0), c.col, p});
  };
  if (sh.atomicSums) {
    // One fixed-point sum per point, converted in f64 and divided by N; the
    // accumulator is reset for the next launch (every CTA of the column has
    // added to it: they arrived before this, the last).
    Type f64 = k.b.getF64Type();
    double scale = std::ldexp(1.0, -int(kWgmmaSumFractionBits)) /
                   static_cast<double>(sh.batch);
    Value zero = arith::ConstantOp::create(k.b, k.b.getI64IntegerAttr(0));
    k.ifThen(k.lt(c.s, k.idx(sh.numSlices)), [&] {
      for (int64_t i = 0; i < perThread; ++i) {
        Value p = k.add(c.part, k.idx(i * c.parts));
        k.ifThen(k.lt(p, k.idx(P)), [&] {
          for (auto [acc, mean, local] :
               {std::tuple(cosPart, cosMean, scratch.cosLocal),
                std::tuple(sinPart, sinMean, scratch.sinLocal)}) {
            Value sum =
                arith::SIToFPOp::create(k.b, f64, k.load(acc, {v, p, c.s}));
            Value m = arith::MulFOp::create(
                k.b, sum,
                arith::ConstantOp::create(k.b, k.b.getF64FloatAttr(scale)));
            storeMean(arith::TruncFOp::create(k.b, k.b.getF32Type(), m), mean,
                      local, p);
            k.store(zero, acc, {v, p, c.s});
          }
        });
      }
    });
    return;
  }
  int64_t group = std::max<int64_t>(1, kTailLoadsInFlight / (2 * T));
  Value batchF = k.f32(static_cast<float>(sh.batch));
  k.ifThen(k.lt(c.s, k.idx(sh.numSlices)), [&] {
    for (int64_t i0 = 0; i0 < perThread; i0 += group) {
      int64_t i1 = std::min(perThread, i0 + group);
      SmallVector<Value> points, cosLoads, sinLoads;
      for (int64_t i = i0; i < i1; ++i) {
        Value p = k.add(c.part, k.idx(i * c.parts));
        points.push_back(p);
        // Past P (the last round of a part): load point P - 1, store nothing.
        Value pc = k.min(p, k.idx(P - 1));
        for (int64_t tile = 0; tile < T; ++tile) {
          cosLoads.push_back(k.load(cosPart, {k.idx(tile), v, pc, c.s}));
          sinLoads.push_back(k.load(sinPart, {k.idx(tile), v, pc, c.s}));
        }
      }
      for (size_t j = 0; j < points.size(); ++j) {
        Value p = points[j];
        Value cs = k.f32(0.0f), sn = k.f32(0.0f);
        for (int64_t tile = 0; tile < T; ++tile) {
          cs = k.addf(cs, cosLoads[j * T + tile]);
          sn = k.addf(sn, sinLoads[j * T + tile]);
        }
        k.ifThen(k.lt(p, k.idx(P)), [&] {
          storeMean(k.divf(cs, batchF), cosMean, scratch.cosLocal, p);
          storeMean(k.divf(sn, batchF), sinMean, scratch.sinLocal, p);
        });
      }
    }
  });
}

/// Stage 6b (epilogue; the means of the CTA's slices complete): thread
/// tid < t.slices computes T[v, s0 + tid] (emitSliceStatistic) into `out`
/// [V, S] (reduction none) or the workspace `stats` [V * S]; then the last
/// CTA to arrive (counter numCounters() - 1) adds the V * S statistics,
/// strided over the 256 consumer threads and then in a fixed tree (as the
/// single launch does), and writes the loss. With foldFinalize this CTA
/// gathered the means (emitGatherBatchTiles), so the statistics read the
/// scratch's shared copy where it has one.
void emitTailEpilogue(KernelBuilder &k, const WgmmaTypes &t,
                      const WgmmaEcfShape &sh, const TailScratch &scratch,
                      Value cosMean, Value sinMean, Value counters, Value out,
                      Value stats, Value step, Value tid, Value s0, Value v) {
  const EpilogueKernelShape &epi = *sh.epilogue;
  int64_t V = sh.numViews, S = sh.numSlices;
  bool none = epi.reduction == Reduction::none;
  // The means this CTA's threads stored are visible to the others.
  consumerBarrier(k);
  Value s = k.add(s0, tid);
  Value hasSlice = k.land(k.lt(tid, k.idx(t.slices)), k.lt(s, k.idx(S)));
  auto barrier = [&] { consumerBarrier(k); };
  auto statistic = [&] {
    if (sh.foldFinalize && scratch.cosLocal)
      return emitSliceStatistic(k, epi, scratch.cosLocal, scratch.sinLocal,
                                k.idx(0), tid);
    return emitSliceStatistic(k, epi, cosMean, sinMean, v, s);
  };
  if (std::optional<LossSumLayout> layout = sh.lossSumLayout()) {
    // This CTA's statistics added by xor shuffles inside each consumer warp,
    // then the warps in order, and that sum to the loss word with one
    // atomic: no second counter, no fences, no pass over the V * S
    // statistics by a last CTA (docs/PERF-NOTES.md u3, t1).
    Value sum =
        emitBlockShuffleSum(k, tid, k.ifElse(hasSlice, statistic, k.f32(0.0f)),
                            scratch.red, barrier);
    k.ifThen(k.lt(tid, k.idx(1)), [&] {
      // The projection kernel, the only reader of a step counter, completed
      // before this kernel's griddepcontrol.wait let its mainloop read g.
      emitPackedLossAdd(k, *layout, sum, stats, out, V * sh.numSliceTiles(),
                        epi.reduction, V * S, [&] {
                          if (step)
                            emitStepAdvance(k, step);
                        });
    });
    return;
  }
  k.ifThen(hasSlice, [&] {
    Value stat = statistic();
    if (none)
      k.store(stat, out, {v, s});
    else
      k.store(stat, stats, {k.add(k.mul(v, k.idx(S)), s)});
  });
  if (none)
    return;
  Value last = arriveAtCounter(k, tid, scratch.flag, counters,
                               k.idx(sh.numCounters() - 1),
                               V * sh.numSliceTiles(), barrier);
  k.ifThen(last, [&] {
    SmallVector<Value> local = k.forEach(
        tid, k.idx(V * S), k.idx(kConsumerThreads), {k.f32(0.0f)},
        [&](Value e, ValueRange acc) {
          return SmallVector<Value>{k.addf(acc[0], k.load(stats, {e}))};
        });
    k.store(local[0], scratch.red, {tid});
    emitBlockTreeSum(k, tid, scratch.red, barrier);
    k.ifThen(k.lt(tid, k.idx(1)), [&] {
      Value total = k.load(scratch.red, {k.idx(0)});
      if (epi.reduction == Reduction::mean)
        total = k.divf(total, k.f32(static_cast<float>(V * S)));
      k.store(total, out, {});
      // The projection kernel, the only reader of a step counter, completed
      // before this kernel's griddepcontrol.wait let its mainloop read g.
      if (step)
        emitStepAdvance(k, step);
    });
  });
}
} // namespace

int64_t WgmmaEcfShape::numCounters() const {
  bool reduce = epilogue && epilogue->reduction != Reduction::none;
  bool counted = reduce && !lossSumLayout();
  return (foldFinalize ? numViews * numSliceTiles() : 0) + (counted ? 1 : 0);
}

std::optional<LossSumLayout> WgmmaEcfShape::lossSumLayout() const {
  if (!epilogue)
    return std::nullopt;
  const EpilogueKernelShape &e = *epilogue;
  return packedLossSumLayout(e.reduction, numViews * numSliceTiles(),
                             numViews * numSlices, e.numPoints, e.tMax,
                             e.globalCount, e.clip, e.clipValue);
}

int64_t mlir::sigreg::wgmmaDynamicSharedBytes(const WgmmaTiling &tiling,
                                              int64_t points) {
  // The operand ring and, aliasing it after the mainloop, the f32 y tile
  // [128][slices]; the ping-pong kernel has the two consumer warpgroups'
  // column scales after the ring instead.
  int64_t ring =
      tiling.stages * (tiling.rows + tiling.slices) * tiling.tileK * 2;
  if (tiling.pingPong())
    return ring + 2 * tiling.slices * 4;
  // The transposed kernel's ECF reads its accumulators: no y tile. Made
  // persistent, it adds its row tiles' sums after the ring ([2 P][slices]).
  if (tiling.rows != kRows)
    return ring + (tiling.persistent ? 2 * points * tiling.slices * 4 : 0);
  int64_t yTile = kRows * (tiling.slices + kYRowPad) * 4;
  return std::max(ring, yTile);
}

namespace {
/// A kernel function of either variant (created at `b`'s insertion point)
/// with its prologue emitted through `k`, which is left at its start: the
/// tensor maps, the arguments, the warpgroup roles, the dynamic shared
/// memory, and the barrier rings set up (stage 1).
struct WgmmaKernel {
  gpu::GPUFuncOp func;
  Value xMap, gMap;
  /// The arguments after the two tensor maps.
  SmallVector<Value> rest;
  Value tid, wg, primary, smem, full, empty;
  /// The CTA's rank in its cluster (index; null without a cluster).
  Value rank;
  int64_t kTiles;
};

/// A kernel `name` of `region` taking the two tensor maps, then `restArgs`,
/// whose GEMM has a reduction dimension of `reduction` (k-tiles of
/// t.tileK).
WgmmaKernel createWgmmaKernel(OpBuilder &b, KernelBuilder &k, Location loc,
                              const WgmmaTypes &t, StringRef name,
                              StringRef region, TypeRange restArgs,
                              int64_t reduction) {
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> args = {ptr, ptr};
  args.append(restArgs.begin(), restArgs.end());

  WgmmaKernel kn;
  kn.func = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(args, {}));
  gpu::GPUFuncOp func = kn.func;
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("sigreg.region", b.getStringAttr(region));
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(t.tiling.threads), 1, 1}));
  func->setAttr(kGridConstantAttrName, b.getDenseI64ArrayAttr({0, 1}));
  // Several CTAs per multiprocessor: ptxas caps the registers at entry so
  // that they fit (setmaxnreg then moves them between the warpgroups).
  if (t.tiling.ctasPerSM > 1)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(t.tiling.ctasPerSM));
  // Clusters along the batch tiles (grid y): `.reqnctapercluster 1, n, 1`
  // (multicast, or the CTAs that generate their g tile together). The
  // ping-pong kernel's grid is one-dimensional: `.reqnctapercluster n, 1,
  // 1` there.
  int64_t clusterDim = std::max(t.tiling.cluster, t.tiling.generate);
  if (clusterDim > 1) {
    int32_t n = static_cast<int32_t>(clusterDim);
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr(t.tiling.persistent
                                             ? ArrayRef<int32_t>{n, 1, 1}
                                             : ArrayRef<int32_t>{1, n, 1}));
  }
  k.b.setInsertionPointToStart(&func.getBody().front());

  kn.xMap = UnrealizedConversionCastOp::create(k.b, t.xMap, func.getArgument(0))
                .getResult(0);
  kn.gMap = UnrealizedConversionCastOp::create(k.b, t.gMap, func.getArgument(1))
                .getResult(0);
  for (unsigned i = 2; i < args.size(); ++i)
    kn.rest.push_back(func.getArgument(i));
  kn.tid = k.threadId(Dimension::x);
  kn.wg = k.div(kn.tid, k.idx(128));
  kn.primary = k.lt(k.rem(kn.tid, k.idx(128)), k.idx(1));
  kn.smem = gpu::DynamicSharedMemoryOp::create(k.b, t.smemBytes);
  kn.full = nvgpu::MBarrierCreateOp::create(k.b, t.barriers);
  kn.empty = nvgpu::MBarrierCreateOp::create(k.b, t.barriers);
  kn.kTiles = (reduction + t.tileK - 1) / t.tileK;
  if (clusterDim > 1)
    kn.rank = arith::IndexCastUIOp::create(
        k.b, k.b.getIndexType(),
        NVVM::ClusterId::create(k.b, k.b.getI32Type()).getResult());
  emitBarrierSetup(k, t, kn.full, kn.empty, kn.xMap, kn.gMap, kn.tid);
  return kn;
}

/// The arguments of the forward kernels after the tensor maps: [sumSq], then
/// the cos and sin outputs ([V, S, P] means for one batch tile, else per-tile
/// sums [T, V, P, S]).
SmallVector<Type> forwardArgs(OpBuilder &b, const WgmmaEcfShape &sh) {
  int64_t V = sh.numViews, S = sh.numSlices, P = sh.numPoints,
          T = sh.numTileSums();
  SmallVector<Type> args;
  if (sh.seeded)
    args.push_back(MemRefType::get({sh.normChunks, S}, b.getF32Type()));
  // Generating g itself: the seed, and g [D, S] to write it into; the grid
  // barrier's counter.
  if (sh.tiling.generate || sh.cooperativeChunkRows)
    args.append(
        {b.getI64Type(), MemRefType::get({sh.featureDim, S}, sh.inputElement)});
  if (sh.cooperativeChunkRows)
    args.push_back(MemRefType::get({1}, b.getI64Type()));
  MemRefType out = T == 1 ? MemRefType::get({V, S, P}, b.getF32Type())
                   : sh.atomicSums
                       ? MemRefType::get({V, P, S}, b.getI64Type())
                       : MemRefType::get({T, V, P, S}, b.getF32Type());
  args.append({out, out});
  if (sh.storeSlices)
    args.push_back(MemRefType::get({V * sh.batch, S},
                                   sh.slicesPhase ? Type(b.getI16Type())
                                                  : Type(b.getF32Type())));
  MemRefType means = MemRefType::get({V, S, P}, b.getF32Type());
  if (sh.foldFinalize)
    args.append({means, means});
  if (sh.numCounters())
    args.push_back(MemRefType::get({sh.numCounters()}, b.getI32Type()));
  if (const EpilogueKernelShape *epi = sh.epilogue) {
    bool none = epi->reduction == Reduction::none;
    args.push_back(none ? MemRefType::get({V, S}, b.getF32Type())
                        : MemRefType::get({}, b.getF32Type()));
    if (!none)
      args.push_back(sh.lossSumLayout()
                         ? MemRefType::get({1}, b.getI64Type())
                         : MemRefType::get({V * S}, b.getF32Type()));
    if (epi->advancesStep)
      args.push_back(MemRefType::get({}, b.getI64Type()));
  }
  return args;
}

/// The forward's arguments unpacked from WgmmaKernel::rest.
struct ForwardArgs {
  Value sumSq, cosOut, sinOut, slicesOut;
  /// With tiling.generate or cooperativeChunkRows: the seed (i64) and g [D,
  /// S] the kernel writes; with cooperativeChunkRows the grid barrier's
  /// counter.
  Value seed, gOut, gridBarrier;
  /// The tail's: the means (cosOut, sinOut without foldFinalize), the
  /// counters, the epilogue's output and statistics workspace (the 64-bit
  /// loss word with WgmmaEcfShape::lossSumLayout).
  Value cosMean, sinMean, counters, out, stats;
  /// The step counter the tail advances (EpilogueKernelShape::advancesStep).
  Value step;
  ForwardArgs(const WgmmaEcfShape &sh, ArrayRef<Value> rest) {
    unsigned next = 0;
    sumSq = sh.seeded ? rest[next++] : Value();
    if (sh.tiling.generate || sh.cooperativeChunkRows) {
      seed = rest[next++];
      gOut = rest[next++];
    }
    if (sh.cooperativeChunkRows)
      gridBarrier = rest[next++];
    cosOut = rest[next++];
    sinOut = rest[next++];
    slicesOut = sh.storeSlices ? rest[next++] : Value();
    cosMean = sh.foldFinalize ? rest[next++] : cosOut;
    sinMean = sh.foldFinalize ? rest[next++] : sinOut;
    counters = sh.numCounters() ? rest[next++] : Value();
    out = sh.epilogue ? rest[next++] : Value();
    stats = sh.epilogue && sh.epilogue->reduction != Reduction::none
                ? rest[next++]
                : Value();
    step = sh.epilogue && sh.epilogue->advancesStep ? rest[next++] : Value();
  }
};

/// The start shared by the forward kernels (`name`: the 128-row, ping-pong
/// and transposed ones): their types, the builder, the kernel with its
/// prologue (createWgmmaKernel, forwardArgs' arguments) and those
/// arguments by role. The insertion point is restored when it goes.
struct ForwardKernel {
  WgmmaTypes t;
  OpBuilder::InsertionGuard guard;
  KernelBuilder k;
  WgmmaKernel kn;
  ForwardArgs out;

  ForwardKernel(OpBuilder &b, Location loc, const WgmmaEcfShape &sh,
                StringRef name)
      : t(b.getContext(), sh.inputElement, sh.tiling, /*kMajorB=*/false,
          sh.splitFeatures),
        guard(b), k(loc, b),
        kn(createWgmmaKernel(b, k, loc, t, name, "trig_reduction",
                             forwardArgs(b, sh), sh.reduction())),
        out(sh, kn.rest) {}
};

/// The warpgroup split: `producer` runs in warpgroup 2, `consumers` in
/// warpgroups 0 and 1, each after its setmaxnreg.
void emitWarpgroupRoles(KernelBuilder &k, const WgmmaTypes &t, Value wg,
                        const std::function<void()> &producer,
                        const std::function<void()> &consumers) {
  Value isProducer =
      arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, wg, k.idx(2));
  auto ifOp = scf::IfOp::create(k.b, isProducer, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(k.b);
  k.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  if (t.tiling.producerRegisters)
    NVVM::SetMaxRegisterOp::create(k.b, t.tiling.producerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
  producer();
  k.b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  if (t.tiling.consumerRegisters)
    NVVM::SetMaxRegisterOp::create(k.b, t.tiling.consumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
  consumers();
}
/// The one-tile kernels' body (stages 2-4): the producer warpgroup streams
/// the tile's k-tiles (x rows from `xRow0`, g columns or rows from `s0`), the
/// consumer warpgroups run the mainloop and store the accumulators into the
/// shared y tile, then run `lastStage` on it. `consumerPrologue` (if any)
/// runs in the consumers before the mainloop and its values go to
/// `lastStage`: loads issued there complete while the MMAs run. The first
/// `xLoaded` k-tiles' x boxes were issued before (emitXPrefetch).
void emitOneTileGemm(
    KernelBuilder &k, const WgmmaTypes &t, const WgmmaKernel &kn, Value xRow0,
    Value s0, function_ref<void(Value yTile, ValueRange pre)> lastStage,
    function_ref<SmallVector<Value>()> consumerPrologue = nullptr,
    int64_t xLoaded = 0) {
  emitWarpgroupRoles(
      k, t, kn.wg,
      [&] {
        k.ifThen(kn.primary, [&] {
          emitTmaProducer(k, t, kn.smem, kn.full, kn.empty, kn.xMap, kn.gMap,
                          xRow0, s0, kn.kTiles, k.idx(0), kn.rank, xLoaded);
        });
      },
      [&] {
        SmallVector<Value> pre;
        if (consumerPrologue)
          pre = consumerPrologue();
        Value acc = emitWgmmaMainloop(k, t, kn.smem, kn.full, kn.empty, kn.xMap,
                                      kn.gMap, kn.wg, kn.primary, kn.kTiles);
        lastStage(emitAccumulatorTile(k, t, kn.smem, acc), pre);
      });
}
/// Stage 6, the tail of the one-tile forward (WgmmaEcfShape::foldFinalize,
/// epilogue): after the tile's sums are stored, the last CTA of its (view,
/// slice tile) to arrive gathers the batch tiles (emitGatherBatchTiles), and
/// with an epilogue computes the statistics (emitTailEpilogue).
void emitTail(KernelBuilder &k, const WgmmaTypes &t, const WgmmaEcfShape &sh,
              const WgmmaKernel &kn, const ForwardArgs &out, Value sliceTile,
              Value s0, Value v) {
  if (!sh.foldFinalize && !sh.epilogue)
    return;
  TailScratch scratch(k, t, sh, kn.smem);
  auto epilogue = [&] {
    if (sh.epilogue)
      emitTailEpilogue(k, t, sh, scratch, out.cosMean, out.sinMean,
                       out.counters, out.out, out.stats, out.step, kn.tid, s0,
                       v);
  };
  if (!sh.foldFinalize)
    return epilogue();
  Value column = k.add(k.mul(v, k.idx(sh.numSliceTiles())), sliceTile);
  Value last = arriveAtCounter(k, kn.tid, scratch.flag, out.counters, column,
                               sh.numBatchTiles(), [&] { consumerBarrier(k); });
  k.ifThen(last, [&] {
    emitGatherBatchTiles(k, t, sh, scratch, out.cosOut, out.sinOut, out.cosMean,
                         out.sinMean, kn.tid, s0, v);
    epilogue();
  });
}

/// Orders this thread's generic-proxy global writes before, or the generic
/// proxy's acquires before, its async-proxy (TMA) accesses:
/// fence.proxy.async.global.
void asyncProxyFence(KernelBuilder &k) {
  NVVM::FenceProxyOp::create(k.b, NVVM::ProxyKind::async_global,
                             NVVM::SharedSpaceAttr());
}

/// Stage 0 of the kernel that generates its own g tile (projection =
/// generated, tiling.generate = C CTAs per cluster along the batch tiles,
/// rank r): the consumer threads generate rows [r D / C, (r + 1) D / C) of
/// the tile's 64 columns, thread t column s0 + t % 64 and chunk 4 r + t /
/// 64 of D / (4 C) rows (emitProjectionRows: the projection kernel's
/// values), stored rounded to the input's type into g [D, S] and the
/// chunk's sum of squares into sumSq; columns past S are skipped. Then
/// every thread orders the stores before the async proxy's reads
/// (fence.proxy.async.global: the producers read g by TMA), passes a
/// cluster barrier (release / acquire; a CTA barrier for C = 1) and fences
/// the async proxy again, after which g and the norms of the whole tile are
/// in global memory for the TMA loads and the column scales.
void emitTileProjection(KernelBuilder &k, const WgmmaTypes &t,
                        const WgmmaEcfShape &sh, const WgmmaKernel &kn,
                        const ForwardArgs &out, Value s0) {
  int64_t C = t.tiling.generate, D = sh.featureDim;
  int64_t chunkRows = D / (4 * C);
  Value col = k.rem(kn.tid, k.idx(kGenerateColumns));
  Value s = k.add(s0, col);
  k.ifThen(k.land(k.lt(kn.tid, k.idx(kConsumerThreads)),
                  k.lt(s, k.idx(sh.numSlices))),
           [&] {
             Value rank = C > 1 ? kn.rank : k.idx(0);
             Value chunk = k.add(k.mul(rank, k.idx(4)),
                                 k.div(kn.tid, k.idx(kGenerateColumns)));
             Value d0 = k.mul(chunk, k.idx(chunkRows));
             Value sum = emitProjectionRows(
                 k, out.seed, s, d0, k.add(d0, k.idx(chunkRows)), D, sh.normals,
                 [&](Value d, ArrayRef<Value> rows) {
                   // D % (16 C) == 0: every row of the chunk is below D.
                   for (int64_t i = 0; i < 4; ++i)
                     k.store(arith::TruncFOp::create(k.b, t.elem, rows[i]),
                             out.gOut, {k.add(d, k.idx(i)), s});
                 });
             k.store(sum, out.sumSq, {chunk, s});
           });
  asyncProxyFence(k);
  if (C > 1) {
    NVVM::ClusterArriveOp::create(k.b, k.b.getUnitAttr());
    NVVM::ClusterWaitOp::create(k.b, k.b.getUnitAttr());
  } else {
    k.barrier();
  }
  // And on the reading side, after the acquire, before its TMA loads.
  asyncProxyFence(k);
}

/// The x boxes of the ring's first min(stages, k-tiles) k-tiles, issued by
/// the producer thread (warpgroup 2's first) while the consumers generate g
/// (TmaPart::XOnly: each stage's full barrier announces x and g bytes; the
/// producer loads the g boxes after the grid barrier, emitTmaProducer's
/// `xLoaded`). The memory system is otherwise idle during the generation.
/// Returns the number of k-tiles prefetched.
int64_t emitXPrefetch(KernelBuilder &k, const WgmmaTypes &t,
                      const WgmmaKernel &kn, Value xRow0, Value s0) {
  int64_t count = std::min<int64_t>(t.stages, kn.kTiles);
  Value isProducer =
      arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, kn.wg, k.idx(2));
  k.ifThen(k.land(isProducer, kn.primary), [&] {
    for (int64_t it = 0; it < count; ++it)
      emitTmaLoad(k, t, kn.smem, kn.full, kn.empty, kn.xMap, kn.gMap, xRow0, s0,
                  k.idx(it), k.idx(it), kn.rank, TmaPart::XOnly);
  });
  return count;
}

/// Stage 0 of the one-tile kernel whose grid generates g (projection =
/// cooperative, sh.cooperativeChunkRows = R rows per chunk): the items
/// (chunk c, column s) of [ceil(D / R), S] go to the consumer threads of
/// the grid, thread t of CTA b (grid order: slice tile, batch tile, view)
/// taking item b x 256 + t, then strides of all of them; each is the
/// projection kernel's thread of that column and chunk
/// (emitProjectionColumnChunk: g rounded to the input's type, rows past D
/// not stored; the chunk's sum of squares into sumSq). Then the stores are
/// ordered before the async proxy's reads (fence.proxy.async.global), the
/// grid passes its barrier (emitGridBarrier; every CTA is resident: the
/// launch is cooperative), and the fence again on the reading side: g and
/// every column's norms are in global memory for the TMA loads and the
/// column scales.
void emitGridProjection(KernelBuilder &k, const WgmmaTypes &t,
                        const WgmmaEcfShape &sh, const WgmmaKernel &kn,
                        const ForwardArgs &out) {
  int64_t R = sh.cooperativeChunkRows, D = sh.featureDim, S = sh.numSlices;
  int64_t chunks = llvm::divideCeilSigned(D, R);
  int64_t ctas = sh.numViews * sh.numBatchTiles() * sh.numSliceTiles();
  Value cta = k.add(
      k.blockId(Dimension::x),
      k.mul(k.idx(sh.numSliceTiles()),
            k.add(k.blockId(Dimension::y),
                  k.mul(k.idx(sh.numBatchTiles()), k.blockId(Dimension::z)))));
  k.ifThen(k.lt(kn.tid, k.idx(kConsumerThreads)), [&] {
    Value first = k.add(k.mul(cta, k.idx(kConsumerThreads)), kn.tid);
    k.forEach(first, k.idx(chunks * S), k.idx(ctas * kConsumerThreads),
              [&](Value item) {
                Value chunk = k.div(item, k.idx(S)), s = k.rem(item, k.idx(S));
                Value d0 = k.mul(chunk, k.idx(R));
                Value d1 = k.min(k.add(d0, k.idx(R)), k.idx(D));
                Value sum = emitProjectionColumnChunk(
                    k, out.seed, s, d0, d1, D, sh.normals, out.gOut, t.elem);
                k.store(sum, out.sumSq, {chunk, s});
              });
  });
  asyncProxyFence(k);
  emitGridBarrier(k, kn.tid, out.gridBarrier, ctas);
  asyncProxyFence(k);
}

/// One CTA tile of a forward kernel: slice tile and its first slice, first
/// row in the batch, view, batch tile, and first row of x viewed as [V * N,
/// D] (rows past N of a view's last tile are loaded, the next view's or
/// TMA's zeros).
struct WgmmaTile {
  Value sliceTile, s0, m0, v, batchTile, xRow0;
};

/// The tile of a one-tile kernel's CTA: grid (slice tiles, batch tiles, V).
WgmmaTile gridTile(KernelBuilder &k, const WgmmaTypes &t,
                   const WgmmaEcfShape &sh) {
  WgmmaTile tile;
  tile.sliceTile = k.blockId(Dimension::x);
  tile.batchTile = k.blockId(Dimension::y);
  tile.v = k.blockId(Dimension::z);
  tile.s0 = k.mul(tile.sliceTile, k.idx(t.slices));
  tile.m0 = k.mul(tile.batchTile, k.idx(t.tiling.rows));
  tile.xRow0 = k.add(k.mul(tile.v, k.idx(sh.batch)), tile.m0);
  return tile;
}

/// Stage 2 of the persistent kernels: the producer thread streams the
/// k-tiles of the CTA's `count` tiles (`tileAt(i)`) as one run of ring
/// steps, tile i taking steps i kTiles .. (i + 1) kTiles - 1.
void emitTileWalkProducer(KernelBuilder &k, const WgmmaTypes &t,
                          const WgmmaKernel &kn, Value count,
                          function_ref<WgmmaTile(Value)> tileAt) {
  k.ifThen(kn.primary, [&] {
    k.forEach(k.idx(0), count, k.idx(1), [&](Value i) {
      WgmmaTile tile = tileAt(i);
      emitTmaProducer(k, t, kn.smem, kn.full, kn.empty, kn.xMap, kn.gMap,
                      tile.xRow0, tile.s0, kn.kTiles,
                      k.mul(i, k.idx(kn.kTiles)), kn.rank);
    });
  });
}

/// A typed view of the dynamic shared memory just after the operand ring
/// (the persistent kernels' own words).
Value afterRing(KernelBuilder &k, const WgmmaTypes &t, Value smem,
                MemRefType type) {
  return smemView(k, smem, k.idx(t.stages * (t.xTileBytes + t.gTileBytes)),
                  type);
}
} // namespace

gpu::GPUFuncOp mlir::sigreg::buildFusedEcfWgmmaKernel(OpBuilder &b,
                                                      Location loc,
                                                      const WgmmaEcfShape &sh) {
  ForwardKernel f(b, loc, sh, "sigreg_fused_ecf_wgmma");
  const WgmmaTypes &t = f.t;
  KernelBuilder &k = f.k;
  WgmmaKernel &kn = f.kn;
  const ForwardArgs &out = f.out;
  // Rows past N of a view's last tile are never summed.
  WgmmaTile tile = gridTile(k, t, sh);
  Value sliceTile = tile.sliceTile, batchTile = tile.batchTile, v = tile.v,
        s0 = tile.s0, m0 = tile.m0, xRow0 = tile.xRow0;
  if (t.tiling.generate)
    emitTileProjection(k, t, sh, kn, out, s0);
  int64_t xLoaded = 0;
  if (sh.cooperativeChunkRows) {
    xLoaded = emitXPrefetch(k, t, kn, xRow0, s0);
    emitGridProjection(k, t, sh, kn, out);
  }
  // The scale's loads before the mainloop where the consumers have the
  // registers for them (one CTA per multiprocessor: setmaxnreg, or the
  // 64-slice tile's 8-stage ring without split operands, whose longer
  // mainloop spilled them): with two CTAs per multiprocessor (no setmaxnreg)
  // they spilled, and the other CTA hides the ECF phase's loads anyway.
  // After the mainloop they were the ECF phase's first stall at mid (8% of
  // its samples, docs/PERF-NOTES.md u2).
  auto columnScale = [&] {
    return SmallVector<Value>{
        emitColumnScale(k, sh, out.sumSq, splitColumns(k, t, kn.tid, s0).s)};
  };
  bool hoistScale = t.tiling.consumerRegisters != 0 ||
                    (t.tiling.ctasPerSM == 1 && !t.splitFeatures);
  emitOneTileGemm(
      k, t, kn, xRow0, s0,
      [&](Value yTile, ValueRange pre) {
        if (out.slicesOut)
          emitSliceStore(k, t, sh, yTile, out.sumSq, out.slicesOut, kn.tid, s0,
                         m0, xRow0);
        Value scale = pre.empty() ? columnScale()[0] : pre[0];
        emitEcfColumns(k, t, sh, kn.smem, yTile, scale, out.cosOut, out.sinOut,
                       kn.tid, s0, m0, v, batchTile);
        emitTail(k, t, sh, kn, out, sliceTile, s0, v);
      },
      hoistScale ? function_ref<SmallVector<Value>()>(columnScale) : nullptr,
      xLoaded);
  gpu::ReturnOp::create(k.b);
  return kn.func;
}

namespace {
/// The ping-pong kernel's tile: 128 slices (two m64 halves, the wgmma's M)
/// x 128 batch rows (its N), per consumer warpgroup.
constexpr int64_t kPingPongRows = 128;
constexpr int64_t kPingPongHalves = 2;
/// Named barriers of the ping-pong kernel (0 is the CTA barrier, 1
/// consumerBarrier's): warpgroup w's turn to issue MMAs (kTurnBarrier + w,
/// both consumer warpgroups) and warpgroup w's own (kOwnBarrier + w).
constexpr int64_t kTurnBarrier = 2, kOwnBarrier = 4;

/// The tiles a CTA of the ping-pong kernel walks (grid: whole clusters, one
/// dimension): cluster c (CTA c without clusters) takes the tile groups c,
/// c + clusters, ... (slice tile fastest, then the group of `cluster`
/// batch tiles, then the view), and the CTA of rank r the group's r-th
/// batch tile, so that a cluster's CTAs share their slice tile (the g tile
/// multicast) and walk the same number of tiles.
struct PingPongTiles {
  /// The CTA's first tile group, the step between its groups, and its
  /// number of tiles.
  Value first, stride, count;
  int64_t cluster, sliceTiles, batchGroups, rows, slices, batch;
  Value rank;

  PingPongTiles(KernelBuilder &k, const WgmmaEcfShape &sh, const WgmmaTypes &t,
                Value rank)
      : cluster(t.tiling.cluster), sliceTiles(sh.numSliceTiles()),
        batchGroups(sh.numBatchTiles() / t.tiling.cluster), rows(t.tiling.rows),
        slices(t.slices), batch(sh.batch), rank(rank) {
    first = k.div(k.blockId(Dimension::x), k.idx(cluster));
    stride = k.div(gpu::GridDimOp::create(k.b, Dimension::x), k.idx(cluster));
    count = k.div(
        k.add(arith::SubIOp::create(k.b, k.idx(sh.numTiles() / cluster), first),
              k.sub(stride, k.idx(1))),
        stride);
  }

  /// The CTA's tile `i`.
  WgmmaTile at(KernelBuilder &k, Value i) const {
    Value index = k.add(first, k.mul(i, stride));
    WgmmaTile tile;
    tile.sliceTile = k.rem(index, k.idx(sliceTiles));
    Value rest = k.div(index, k.idx(sliceTiles));
    tile.batchTile = k.rem(rest, k.idx(batchGroups));
    if (cluster > 1)
      tile.batchTile = k.add(k.mul(tile.batchTile, k.idx(cluster)), rank);
    tile.v = k.div(rest, k.idx(batchGroups));
    tile.s0 = k.mul(tile.sliceTile, k.idx(slices));
    tile.m0 = k.mul(tile.batchTile, k.idx(rows));
    tile.xRow0 = k.add(k.mul(tile.v, k.idx(batch)), tile.m0);
    return tile;
  }
};

/// The accumulator of one m64nNk16 wgmma (N = `rows`, the x tile's) as
/// nvvm.wgmma.mma_async carries it: N / 2 f32 per thread.
Type transposedAccumulatorType(MLIRContext *ctx, int64_t rows) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(rows / 2, Float32Type::get(ctx)));
}

/// Stage 3 of the transposed kernels, the MMAs of one k-tile at ring stage
/// `s` as one commit group: for each k16 step and each 64-slice half h of
/// `halves` (g box indices), one nvvm.wgmma.mma_async m64nNk16 into
/// acc[h], N = the x tile's t.tiling.rows: [64 slices][N rows] += g
/// box^T x tile^T. A is the half's g box [64 k][64 slices] read M-major
/// (transposed: 128-byte swizzle, 8 k-rows 1 KB apart, the step 16 k-rows =
/// 2 KB); B the x tile [N rows][64 k] read K-major (the step 32 bytes along
/// its swizzled rows). nvgpu.warpgroup.mma's verifier accepts a transposed A
/// only with a transposed B, hence the NVVM op.
SmallVector<Value> emitTransposedKTile(KernelBuilder &k, const WgmmaTypes &t,
                                       Value smem, Value s, ValueRange halves,
                                       ValueRange acc, bool first = false) {
  MLIRContext *ctx = k.b.getContext();
  auto in = NVVM::WGMMATypesAttr::get(
      ctx, t.elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16);
  auto f32 = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, t.tiling.rows, 16);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  auto accumulate = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one);
  // col: A M-major (imm-trans-a 1), B K-major (imm-trans-b 0).
  auto col = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col);
  int64_t boxBytes = t.tileK * kGBoxSlices * 2;
  Value xOff = xTileOffset(k, t, s), gOff = gTileOffset(k, t, s);
  NVVM::WgmmaFenceAlignedOp::create(k.b);
  SmallVector<Value> next(acc.begin(), acc.end());
  for (int64_t step = 0; step < t.tileK / 16; ++step) {
    Value b = sharedMatrixDescriptor(k, smem, k.add(xOff, k.idx(step * 32)),
                                     /*layout=*/1, /*lboField=*/1, 1024);
    for (auto [h, half] : llvm::enumerate(halves)) {
      Value a = sharedMatrixDescriptor(
          k, smem,
          k.add(k.add(gOff, k.mul(half, k.idx(boxBytes))),
                k.idx(step * 16 * kGBoxSlices * 2)),
          /*layout=*/1, /*lboField=*/boxBytes >> 4, 1024);
      // The tile's first k16 step overwrites the accumulator (scale-d 0).
      auto scaleD =
          first && step == 0
              ? NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::zero)
              : accumulate;
      next[h] = NVVM::WgmmaMmaAsyncOp::create(
          k.b, next[h].getType(), next[h], a, b, shape, in, in, f32, scaleD,
          one, one, col, col, /*satfinite=*/nullptr);
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(k.b);
  return next;
}

/// Stage 3 of the transposed kernels: the warpgroup's MMAs of one tile
/// (the g box halves `halves`), ring k-steps [stepBase, stepBase + kTiles).
/// Once a k-tile's MMAs are issued the previous k-tile's are complete
/// (wait_group 1) and its stage goes back to the producer; `afterIssue` (if
/// given) runs once the last k-tile is issued, then the warpgroup waits for
/// all (wait_group 0) and hands back the last stage. Returns one
/// accumulator per half.
SmallVector<Value> emitTransposedMainloop(KernelBuilder &k, const WgmmaTypes &t,
                                          const WgmmaKernel &kn,
                                          ValueRange halves, Value stepBase,
                                          Value totalSteps,
                                          function_ref<void()> afterIssue) {
  MLIRContext *ctx = k.b.getContext();
  auto stageOf = [&](Value step) { return k.rem(step, k.idx(t.stages)); };
  // In a cluster the stage goes back to every CTA's producer (the peers'
  // multicast writes into it too), except in the CTA's last `stages`
  // k-steps, which no producer waits for (as releasedInCluster).
  auto release = [&](Value step) {
    if (t.tiling.cluster == 1) {
      nvgpu::MBarrierArriveOp::create(k.b, nvgpu::MBarrierTokenType::get(ctx),
                                      kn.empty, stageOf(step));
      return;
    }
    k.ifThen(k.lt(k.add(step, k.idx(t.stages)), totalSteps), [&] {
      arriveInCluster(k, kn.empty, stageOf(step), t.tiling.cluster);
    });
  };
  auto waitFull = [&](Value step) {
    Value parity = arith::IndexCastOp::create(
        k.b, k.b.getI1Type(), k.rem(k.div(step, k.idx(t.stages)), k.idx(2)));
    nvgpu::MBarrierTryWaitParityOp::create(k.b, kn.full, parity,
                                           k.idx(10000000), stageOf(step));
  };
  // k-tile 0 starts the accumulators from scale-d 0, not from registers
  // set to zero: ptxas waited for the first wgmma before the second half's
  // zeroing moves (C7517).
  Value undef = LLVM::PoisonOp::create(
      k.b, transposedAccumulatorType(ctx, t.tiling.rows));
  waitFull(stepBase);
  SmallVector<Value> acc0 = emitTransposedKTile(
      k, t, kn.smem, stageOf(stepBase), halves,
      SmallVector<Value>(halves.size(), undef), /*first=*/true);
  SmallVector<Value> acc =
      k.forEach(k.idx(1), k.idx(kn.kTiles), k.idx(1), acc0,
                [&](Value it, ValueRange carried) {
                  Value step = k.add(stepBase, it);
                  Value s = stageOf(step);
                  waitFull(step);
                  SmallVector<Value> next =
                      emitTransposedKTile(k, t, kn.smem, s, halves, carried);
                  NVVM::WgmmaWaitGroupSyncOp::create(k.b, 1);
                  k.ifThen(kn.primary, [&] { release(k.sub(step, k.idx(1))); });
                  return next;
                });
  if (afterIssue)
    afterIssue();
  NVVM::WgmmaWaitGroupSyncOp::create(k.b, 0);
  k.ifThen(kn.primary, [&] { release(k.add(stepBase, k.idx(kn.kTiles - 1))); });
  return acc;
}

/// The rows of a tile of `rows` rows from batch row `m0` inside the batch
/// (count), and those past it as an f32 (each added exactly 1 to every cos
/// sum: its y is TMA's zero).
std::pair<Value, Value> tileRowsInBatch(KernelBuilder &k, int64_t batch,
                                        int64_t rows, Value m0) {
  Value count =
      k.min(k.idx(rows), arith::SubIOp::create(k.b, k.idx(batch), m0));
  Value outside = arith::UIToFPOp::create(
      k.b, k.b.getF32Type(),
      arith::IndexCastUIOp::create(
          k.b, k.b.getI32Type(),
          arith::SubIOp::create(k.b, k.idx(rows), count)));
  return {count, outside};
}

/// The ECF sums of one slice from the accumulators (each lane of a quad
/// holds a quarter of the tile's rows) added over the quad by xor shuffles,
/// less `outside` from the cos sums: every lane of the quad gets the
/// tile's sums.
SmallVector<Value> emitQuadSums(KernelBuilder &k, int64_t P,
                                SmallVector<Value> sums, Value outside) {
  for (Value &sum : sums)
    sum = addXorShuffled(k, addXorShuffled(k, sum, 1), 2);
  for (int64_t p = 1; p < P; ++p)
    sums[p - 1] = k.subf(sums[p - 1], outside);
  return sums;
}

/// The lane that writes its quad's sums: lane % 4 = 0.
Value quadLeader(KernelBuilder &k, Value lane) {
  return k.lt(k.rem(lane, k.idx(4)), k.idx(1));
}

/// emitQuadSums of slice `s`, stored by the quad's leader (emitEcfStore).
void emitQuadSumsStore(KernelBuilder &k, const WgmmaEcfShape &sh,
                       SmallVector<Value> sums, Value lane, Value outside,
                       Value count, Value s, const WgmmaTile &tile,
                       Value cosOut, Value sinOut) {
  sums = emitQuadSums(k, sh.numPoints, std::move(sums), outside);
  k.ifThen(k.land(quadLeader(k, lane), k.lt(s, k.idx(sh.numSlices))), [&] {
    emitEcfStore(k, sh, sums, count, s, tile.v, tile.batchTile, cosOut, sinOut);
  });
}

/// The ECF sums of `pairs` row pairs of one slice (element(j, 0) and
/// element(j, 1) for pair j), p = 1..P-1: cos sums, then sin sums
/// (forEachHarmonicPair; `halfScale` = the slice's scale / 2).
SmallVector<Value> emitPairSums(KernelBuilder &k, int64_t P, int64_t pairs,
                                function_ref<Value(int64_t, int64_t)> element,
                                Value halfScale) {
  SmallVector<Value> sums(2 * (P - 1), k.f32(0.0f));
  for (int64_t j = 0; j < pairs; ++j)
    forEachHarmonicPair(k, P, element(j, 0), element(j, 1), halfScale,
                        [&](int64_t p, Value c, Value sn, Value w) {
                          sums[p - 1] = k.fma(c, w, sums[p - 1]);
                          sums[P - 1 + p - 1] =
                              k.fma(sn, w, sums[P - 1 + p - 1]);
                        });
  return sums;
}

/// The warpgroup index `wg` through a shuffle from lane 0, so that ptxas
/// sees it warp-uniform: loops around wgmmas that ptxas takes for divergent
/// are serialized (C7520), and the index picks wgmma descriptors.
Value warpUniform(KernelBuilder &k, Value wg) {
  Value wg32 = arith::IndexCastOp::create(k.b, k.b.getI32Type(), wg);
  return arith::IndexCastOp::create(
      k.b, k.b.getIndexType(),
      gpu::ShuffleOp::create(k.b, wg32, 0, 32, gpu::ShuffleMode::IDX)
          .getShuffleResult());
}

/// Stage 5 of the ping-pong kernel: the ECF of the warpgroup's tile from
/// its accumulators. Thread `lane` of warp `warp` of the warpgroup holds
/// the slices 64 h + 16 warp + lane / 4 + 8 i (h, i in {0, 1}) at the rows
/// 8 j + 2 (lane % 4) + c (j < 16, c in {0, 1}): element 4 j + 2 i + c of
/// half h's accumulator. For each of its four slices (a loop; the values
/// selected from the halves) the 16 row pairs (c = 0, 1) go through
/// forEachHarmonicPair into the 2 (P - 1) sums, the four lanes of the slice
/// add theirs by xor shuffles, and lane % 4 = 0 stores them (emitEcfStore).
/// Rows past N are zero (TMA fills rows past V N with zeros, and the
/// schedule takes this kernel only where V = 1 or N % 128 = 0); each added
/// exactly 1 to every cos sum, which is subtracted. `scales`: the tile's
/// column scales (emitColumnScale) by local slice.
void emitPingPongEcf(KernelBuilder &k, const WgmmaEcfShape &sh, Value acc0,
                     Value acc1, Value scales, Value tidInWg,
                     const WgmmaTile &tile, Value cosOut, Value sinOut) {
  int64_t P = sh.numPoints;
  Value lane = k.rem(tidInWg, k.idx(32)), warp = k.div(tidInWg, k.idx(32));
  Value quad = k.div(lane, k.idx(4));
  Value count, outside;
  std::tie(count, outside) =
      tileRowsInBatch(k, sh.batch, kPingPongRows, tile.m0);
  k.forEach(k.idx(0), k.idx(2 * kPingPongHalves), k.idx(1), [&](Value slot) {
    Value upper = k.lt(k.idx(1), slot);
    Value second =
        arith::IndexCastOp::create(k.b, k.b.getI1Type(), k.rem(slot, k.idx(2)));
    Value m = k.add(
        k.add(k.mul(k.div(slot, k.idx(2)), k.idx(64)), k.mul(warp, k.idx(16))),
        k.add(quad, k.mul(k.rem(slot, k.idx(2)), k.idx(8))));
    Value s = k.add(tile.s0, m);
    Value halfScale = k.mulf(k.load(scales, {m}), k.f32(0.5f));
    auto element = [&](int64_t j, int64_t c) {
      auto pick = [&](Value acc) {
        auto at = [&](int64_t e) {
          return LLVM::ExtractValueOp::create(k.b, acc, ArrayRef<int64_t>{e})
              .getResult();
        };
        return k.select(second, at(4 * j + 2 + c), at(4 * j + c));
      };
      return k.select(upper, pick(acc1), pick(acc0));
    };
    SmallVector<Value> sums =
        emitPairSums(k, P, kPingPongRows / 8, element, halfScale);
    emitQuadSumsStore(k, sh, sums, lane, outside, count, s, tile, cosOut,
                      sinOut);
  });
}

/// The column scales (emitColumnScale) of a quad's two slices `slices`,
/// loaded before the mainloop so that the loads are in flight while the
/// MMAs run: the lanes with lane % 2 = i form slice i's, and every lane of
/// the quad reads both by shuffles (each thread loading both slices' up to
/// 2 x 64 per-chunk sums at once made ptxas spill).
SmallVector<Value> emitQuadColumnScales(KernelBuilder &k,
                                        const WgmmaEcfShape &sh, Value sumSq,
                                        ArrayRef<Value> slices, Value lane) {
  Value odd =
      arith::IndexCastOp::create(k.b, k.b.getI1Type(), k.rem(lane, k.idx(2)));
  Value mine =
      emitColumnScale(k, sh, sumSq, k.select(odd, slices[1], slices[0]));
  Value quadLane0 = arith::IndexCastOp::create(
      k.b, k.b.getI32Type(), k.sub(lane, k.rem(lane, k.idx(4))));
  SmallVector<Value> scales;
  for (int32_t i = 0; i < 2; ++i)
    scales.push_back(
        gpu::ShuffleOp::create(
            k.b, mine,
            arith::AddIOp::create(k.b, quadLane0, i32Const(k, i)).getResult(),
            i32Const(k, 32), gpu::ShuffleMode::IDX)
            .getShuffleResult());
  return scales;
}

/// Stage 5 of the transposed one-tile kernel: the ECF of the warpgroup's 64
/// slices x t.tiling.rows rows from its accumulator `acc`. Thread `lane`
/// of warp `warp` of the warpgroup holds the slices `slices[i]` = s0 + 64
/// wg + 16 warp + lane / 4 + 8 i (i in {0, 1}) at the rows 8 j + 2 (lane %
/// 4) + c (j < rows / 8, c in {0, 1}): element 4 j + 2 i + c. For each of
/// its two slices the row pairs (c = 0, 1) go through forEachHarmonicPair
/// into the 2 (P - 1) sums (`scales[i]`: the slice's emitColumnScale),
/// emitQuadSums adds the quad's, and `finish` gets them with the slice and
/// the tile's rows inside the batch. The two slices are a loop whose body
/// selects the slice's elements (a select per element): with both unrolled the
/// kernel was 10-25% slower where the ECF weighs most (N 8192 D 512 S 1024:
/// 0.0521 against 0.0421 ms, docs/PERF-NOTES.md). Rows past N are zero (TMA
/// fills rows past V N with zeros, and wgmmaTransposedObstacle keeps batch
/// tiles inside their view).
void emitTransposedEcf(
    KernelBuilder &k, const WgmmaEcfShape &sh, const WgmmaTypes &t, Value acc,
    ArrayRef<Value> slices, ArrayRef<Value> scales, const WgmmaTile &tile,
    function_ref<void(Value s, ArrayRef<Value> sums, Value count)> finish) {
  int64_t P = sh.numPoints, rows = t.tiling.rows;
  Value count, outside;
  std::tie(count, outside) = tileRowsInBatch(k, sh.batch, rows, tile.m0);
  auto at = [&](int64_t e) {
    return LLVM::ExtractValueOp::create(k.b, acc, ArrayRef<int64_t>{e})
        .getResult();
  };
  k.forEach(k.idx(0), k.idx(2), k.idx(1), [&](Value i) {
    Value second = arith::IndexCastOp::create(k.b, k.b.getI1Type(), i);
    Value s = k.select(second, slices[1], slices[0]);
    Value halfScale =
        k.mulf(k.select(second, scales[1], scales[0]), k.f32(0.5f));
    auto element = [&](int64_t j, int64_t c) {
      return k.select(second, at(4 * j + 2 + c), at(4 * j + c));
    };
    SmallVector<Value> sums = emitQuadSums(
        k, P, emitPairSums(k, P, rows / 8, element, halfScale), outside);
    finish(s, sums, count);
  });
}
} // namespace

gpu::GPUFuncOp
mlir::sigreg::buildFusedEcfWgmmaPersistentKernel(OpBuilder &b, Location loc,
                                                 const WgmmaEcfShape &sh) {
  assert(!sh.storeSlices && !sh.foldFinalize && !sh.atomicSums &&
         !sh.epilogue && "the ping-pong kernel writes the tiles' sums only");
  ForwardKernel f(b, loc, sh, "sigreg_fused_ecf_wgmma_persistent");
  const WgmmaTypes &t = f.t;
  KernelBuilder &k = f.k;
  WgmmaKernel &kn = f.kn;
  const ForwardArgs &out = f.out;
  PingPongTiles tiles(k, sh, t, kn.rank);
  Value myTiles = tiles.count;
  Value totalSteps = k.mul(myTiles, k.idx(kn.kTiles));
  auto tileOf = [&](Value i) { return tiles.at(k, i); };
  // Each consumer warpgroup's column scales, after the ring.
  Value scales =
      afterRing(k, t, kn.smem, t.tile({2, t.slices}, k.b.getF32Type()));
  emitWarpgroupRoles(
      k, t, kn.wg, [&] { emitTileWalkProducer(k, t, kn, myTiles, tileOf); },
      [&] {
        // Warpgroup w takes the CTA's tiles w, w + 2, ... Its turn to issue
        // MMAs comes when the other has issued its previous tile's, so that
        // the two take the ring's k-steps in order (a warpgroup never waits
        // on a `full` phase more than one round ahead) and the tensor cores
        // run one warpgroup's MMAs while the other computes its ECF.
        // The tile loop's bounds depend on the warpgroup index.
        Value wg = warpUniform(k, kn.wg);
        Value col = k.rem(kn.tid, k.idx(128));
        Value myTurn = k.add(k.idx(kTurnBarrier), wg);
        Value otherTurn = k.sub(k.idx(kTurnBarrier + 1), wg);
        Value wgScales = memref::SubViewOp::create(
            k.b, scales,
            ArrayRef<OpFoldResult>{OpFoldResult(wg), k.b.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{k.b.getIndexAttr(1),
                                   k.b.getIndexAttr(t.slices)},
            ArrayRef<OpFoldResult>{k.b.getIndexAttr(1), k.b.getIndexAttr(1)});
        Value wgScales1D = memref::CollapseShapeOp::create(
            k.b, wgScales, ArrayRef<ReassociationIndices>{{0, 1}});
        k.forEach(wg, myTiles, k.idx(2), [&](Value i) {
          WgmmaTile tile = tileOf(i);
          // The scale's loads are in flight while the warpgroup waits.
          Value scale = emitColumnScale(k, sh, out.sumSq, k.add(tile.s0, col));
          k.ifThen(k.lt(k.idx(0), i),
                   [&] { namedBarrier(k, myTurn, 2 * 128); });
          k.store(scale, wgScales1D, {col});
          SmallVector<Value> halves = {k.idx(0), k.idx(1)};
          SmallVector<Value> acc = emitTransposedMainloop(
              k, t, kn, halves, k.mul(i, k.idx(kn.kTiles)), totalSteps, [&] {
                k.ifThen(k.lt(k.add(i, k.idx(1)), myTiles), [&] {
                  namedBarrier(k, otherTurn, 2 * 128, /*arriveOnly=*/true);
                });
              });
          namedBarrier(k, k.add(k.idx(kOwnBarrier), wg), 128);
          emitPingPongEcf(k, sh, acc[0], acc[1], wgScales1D, col, tile,
                          out.cosOut, out.sinOut);
        });
      });
  gpu::ReturnOp::create(k.b);
  return kn.func;
}

gpu::GPUFuncOp
mlir::sigreg::buildFusedEcfWgmmaTransposedKernel(OpBuilder &b, Location loc,
                                                 const WgmmaEcfShape &sh) {
  assert(!sh.storeSlices && !sh.foldFinalize && !sh.atomicSums &&
         !sh.epilogue && "the transposed kernel writes the tiles' sums only");
  ForwardKernel f(b, loc, sh, "sigreg_fused_ecf_wgmma_transposed");
  const WgmmaTypes &t = f.t;
  KernelBuilder &k = f.k;
  WgmmaKernel &kn = f.kn;
  const ForwardArgs &out = f.out;
  // The consumer thread's two slices of the tile from slice `s0` (its
  // warpgroup's g box, its warp's 16 slices, its quad's two) and their
  // column scales.
  struct QuadSlices {
    Value wg, lane;
    SmallVector<Value> slices, scales;
  };
  auto quadSlices = [&](Value s0) {
    QuadSlices q;
    // The warpgroup picks its g box (the wgmma descriptors).
    q.wg = warpUniform(k, kn.wg);
    Value tidInWg = k.rem(kn.tid, k.idx(128));
    q.lane = k.rem(tidInWg, k.idx(32));
    Value first = k.add(k.add(s0, k.mul(q.wg, k.idx(kGBoxSlices))),
                        k.add(k.mul(k.div(tidInWg, k.idx(32)), k.idx(16)),
                              k.div(q.lane, k.idx(4))));
    q.slices = {first, k.add(first, k.idx(8))};
    q.scales = emitQuadColumnScales(k, sh, out.sumSq, q.slices, q.lane);
    return q;
  };
  if (!t.tiling.persistent) {
    WgmmaTile tile = gridTile(k, t, sh);
    emitWarpgroupRoles(
        k, t, kn.wg,
        [&] {
          k.ifThen(kn.primary, [&] {
            emitTmaProducer(k, t, kn.smem, kn.full, kn.empty, kn.xMap, kn.gMap,
                            tile.xRow0, tile.s0, kn.kTiles, k.idx(0), kn.rank);
          });
        },
        [&] {
          QuadSlices q = quadSlices(tile.s0);
          SmallVector<Value> acc = emitTransposedMainloop(
              k, t, kn, ValueRange{q.wg}, k.idx(0), k.idx(kn.kTiles), nullptr);
          emitTransposedEcf(k, sh, t, acc[0], q.slices, q.scales, tile,
                            [&](Value s, ArrayRef<Value> sums, Value count) {
                              k.ifThen(k.land(quadLeader(k, q.lane),
                                              k.lt(s, k.idx(sh.numSlices))),
                                       [&] {
                                         emitEcfStore(k, sh, sums, count, s,
                                                      tile.v, tile.batchTile,
                                                      out.cosOut, out.sinOut);
                                       });
                            });
        });
    gpu::ReturnOp::create(k.b);
    return kn.func;
  }
  // Persistent (transposedSumGroups): CTA c keeps slice tile c % slice
  // tiles and walks the row tiles r = group, group + groups, ... (view r /
  // batch tiles, batch tile r % batch tiles) of its group c / slice tiles.
  // The producer streams their k-tiles as one run of ring steps, so that it
  // fills the ring for the next tile while the consumers compute this
  // tile's ECF from their accumulators; the quads' leaders add each tile's
  // sums into shared memory and write them out once per view.
  int64_t groups = sh.numTileSums(), batchTiles = sh.numBatchTiles(),
          sliceTiles = sh.numSliceTiles(), P = sh.numPoints;
  Value cta = k.blockId(Dimension::x);
  Value sliceTile = k.rem(cta, k.idx(sliceTiles));
  Value s0 = k.mul(sliceTile, k.idx(t.slices));
  Value group = k.div(cta, k.idx(sliceTiles));
  Value count = k.div(
      k.add(arith::SubIOp::create(k.b, k.idx(sh.numViews * batchTiles), group),
            k.idx(groups - 1)),
      k.idx(groups));
  auto rowTile = [&](Value i) { return k.add(group, k.mul(i, k.idx(groups))); };
  auto tileAt = [&](Value i) {
    WgmmaTile tile;
    Value r = rowTile(i);
    tile.v = k.div(r, k.idx(batchTiles));
    tile.batchTile = k.rem(r, k.idx(batchTiles));
    tile.sliceTile = sliceTile;
    tile.s0 = s0;
    tile.m0 = k.mul(tile.batchTile, k.idx(t.tiling.rows));
    tile.xRow0 = k.add(k.mul(tile.v, k.idx(sh.batch)), tile.m0);
    return tile;
  };
  Value totalSteps = k.mul(count, k.idx(kn.kTiles));
  // The group's sums of the CTA's slices after the ring: [2 P][slices], cos
  // p at row p (row 0: the rows counted), sin p at row P + p.
  Value groupSums =
      afterRing(k, t, kn.smem, t.tile({2 * P, t.slices}, k.b.getF32Type()));
  emitWarpgroupRoles(
      k, t, kn.wg, [&] { emitTileWalkProducer(k, t, kn, count, tileAt); },
      [&] {
        QuadSlices q = quadSlices(s0);
        Value leader = quadLeader(k, q.lane);
        // Only a quad's leader touches its slices' words: no barriers.
        auto clear = [&](Value col) {
          for (int64_t p = 0; p < 2 * P; ++p)
            k.store(k.f32(0.0f), groupSums, {k.idx(p), col});
        };
        k.ifThen(leader, [&] {
          for (Value slice : q.slices)
            clear(k.sub(slice, s0));
        });
        k.forEach(k.idx(0), count, k.idx(1), [&](Value i) {
          WgmmaTile tile = tileAt(i);
          SmallVector<Value> acc = emitTransposedMainloop(
              k, t, kn, ValueRange{q.wg}, k.mul(i, k.idx(kn.kTiles)),
              totalSteps, nullptr);
          emitTransposedEcf(
              k, sh, t, acc[0], q.slices, q.scales, tile,
              [&](Value s, ArrayRef<Value> sums, Value rows) {
                k.ifThen(leader, [&] {
                  Value col = k.sub(s, s0);
                  auto add = [&](int64_t row, Value v) {
                    k.store(k.addf(k.load(groupSums, {k.idx(row), col}), v),
                            groupSums, {k.idx(row), col});
                  };
                  add(0, arith::UIToFPOp::create(
                             k.b, k.b.getF32Type(),
                             arith::IndexCastUIOp::create(k.b, k.b.getI32Type(),
                                                          rows)));
                  for (int64_t p = 1; p < P; ++p) {
                    add(p, sums[p - 1]);
                    add(P + p, sums[P - 1 + p - 1]);
                  }
                });
              });
          // The group's last row tile in this view: out go its sums.
          Value next = k.add(i, k.idx(1));
          Value sameView =
              k.land(k.lt(next, count),
                     arith::CmpIOp::create(
                         k.b, arith::CmpIPredicate::eq,
                         k.div(rowTile(next), k.idx(batchTiles)), tile.v));
          Value flush = arith::XOrIOp::create(
              k.b, sameView,
              arith::ConstantOp::create(k.b, k.b.getBoolAttr(true)));
          k.ifThen(k.land(leader, flush), [&] {
            for (Value slice : q.slices) {
              Value col = k.sub(slice, s0);
              k.ifThen(k.lt(slice, k.idx(sh.numSlices)), [&] {
                SmallVector<Value> sums;
                for (int64_t p = 1; p < P; ++p)
                  sums.push_back(k.load(groupSums, {k.idx(p), col}));
                for (int64_t p = 1; p < P; ++p)
                  sums.push_back(k.load(groupSums, {k.idx(P + p), col}));
                emitEcfStore(k, sh, sums, k.load(groupSums, {k.idx(0), col}),
                             slice, tile.v, group, out.cosOut, out.sinOut);
              });
              clear(col);
            }
          });
        });
      });
  gpu::ReturnOp::create(k.b);
  return kn.func;
}

gpu::GPUFuncOp mlir::sigreg::buildEcfGradWgmmaKernel(OpBuilder &b, Location loc,
                                                     const WgmmaEcfShape &sh) {
  WgmmaTypes t(b.getContext(), sh.inputElement, sh.tiling);
  OpBuilder::InsertionGuard guard(b);
  KernelBuilder k(loc, b);
  int64_t V = sh.numViews, N = sh.batch, S = sh.numSlices, P = sh.numPoints;
  SmallVector<Type> rest;
  if (sh.seeded)
    rest.push_back(MemRefType::get({sh.normChunks, S}, b.getF32Type()));
  MemRefType ecf = MemRefType::get({V, S, P}, b.getF32Type());
  rest.append({ecf, ecf, MemRefType::get({V * N, S}, sh.inputElement)});
  WgmmaKernel kn = createWgmmaKernel(b, k, loc, t, "sigreg_ecf_grad_wgmma",
                                     "backward_trig", rest, sh.featureDim);
  unsigned next = 0;
  Value sumSq = sh.seeded ? kn.rest[next++] : Value();
  Value dcos = kn.rest[next++], dsin = kn.rest[next++],
        gradOut = kn.rest[next++];
  Value s0 = k.mul(k.blockId(Dimension::x), k.idx(t.slices));
  Value m0 = k.mul(k.blockId(Dimension::y), k.idx(kRows));
  Value v = k.blockId(Dimension::z);
  Value xRow0 = k.add(k.mul(v, k.idx(N)), m0);
  emitOneTileGemm(k, t, kn, xRow0, s0, [&](Value yTile, ValueRange) {
    emitEcfGradColumns(k, t, sh, yTile, sumSq, dcos, dsin, gradOut, kn.tid, s0,
                       m0, v, xRow0);
  });
  gpu::ReturnOp::create(k.b);
  return kn.func;
}

int64_t mlir::sigreg::ecfGradSliceRows(int64_t numViews, int64_t batch,
                                       int64_t numSlices) {
  int64_t columns =
      numViews * llvm::divideCeilSigned<int64_t>(numSlices, kBlockThreads);
  int64_t rows = 64;
  while (rows > kRowsPerStep &&
         columns * llvm::divideCeilSigned<int64_t>(batch, rows) < kTargetBlocks)
    rows /= 2;
  return rows;
}

gpu::GPUFuncOp mlir::sigreg::buildEcfGradSlicesKernel(
    OpBuilder &b, Location loc, const WgmmaEcfShape &sh, int64_t rowsPerBlock,
    const EpilogueKernelShape *cotangent, bool inPlace) {
  int64_t V = sh.numViews, N = sh.batch, S = sh.numSlices, P = sh.numPoints;
  assert((!inPlace || sh.slicesPhase) && "G overwrites 16-bit phases only");
  Type i16 = b.getI16Type();
  SmallVector<Type> args = {
      MemRefType::get({V * N, S}, sh.slicesPhase ? i16 : Type(b.getF32Type()))};
  if (sh.seeded)
    args.push_back(MemRefType::get({sh.normChunks, S}, b.getF32Type()));
  MemRefType ecf = MemRefType::get({V, S, P}, b.getF32Type());
  args.append({ecf, ecf});
  // The loss's cotangent: a scalar, or [V, S] for per-slice statistics.
  if (cotangent && !cotangent->unitCotangent)
    args.push_back(cotangent->reduction == Reduction::none
                       ? MemRefType::get({V, S}, b.getF32Type())
                       : MemRefType::get({}, b.getF32Type()));
  if (!inPlace)
    args.push_back(MemRefType::get({V * N, S}, sh.inputElement));
  auto func =
      createKernel(b, loc, "sigreg_ecf_grad_slices", "backward_trig", args, {});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  unsigned next = 0;
  Value slices = func.getArgument(next++);
  Value sumSq = sh.seeded ? func.getArgument(next++) : Value();
  // dcos, dsin, or (with the cotangent folded in) the global means cos,
  // sin and the loss's cotangent.
  Value dcos = func.getArgument(next++), dsin = func.getArgument(next++);
  Value lossGrad = cotangent && !cotangent->unitCotangent
                       ? func.getArgument(next++)
                       : Value();
  Value gradOut = inPlace ? slices : func.getArgument(next++);
  // Launched as a programmatic dependent of the forward kernel that writes
  // the slices and the means, it waits here for them (at once otherwise).
  NVVM::GriddepcontrolOp::create(k.b, NVVM::GridDepActionKind::wait);
  Value s = k.add(k.mul(k.blockId(Dimension::x), k.idx(kBlockThreads)),
                  k.threadId(Dimension::x));
  Value n0 = k.mul(k.blockId(Dimension::y), k.idx(rowsPerBlock));
  Value v = k.blockId(Dimension::z);
  k.ifThen(k.lt(s, k.idx(S)), [&] {
    // y is normalized already: the angle is dt y; the coefficients carry
    // 1 / ||g_s||.
    Value scale = emitColumnScale(k, sh, sumSq, s);
    GradCoefficients coef;
    if (cotangent) {
      SliceCotangent c =
          emitSliceCotangent(k, *cotangent, dcos, dsin, lossGrad, v, s);
      coef = gradCoefficientsFrom(k, P, sh.tMax, N, scale, c.dcos, c.dsin);
    } else {
      coef = emitGradCoefficients(k, sh, scale, dcos, dsin, v, s);
    }
    Value dt = k.f32(static_cast<float>(sh.tMax / double(P - 1)));
    Value count =
        k.min(k.idx(rowsPerBlock), arith::SubIOp::create(k.b, k.idx(N), n0));
    Value row0 = k.add(k.mul(v, k.idx(N)), n0);
    Value lastRow = k.add(row0, arith::SubIOp::create(k.b, count, k.idx(1)));
    // The rows [r, r + step) of the block, clamped to its last row (a
    // clamped row is loaded again, never stored).
    constexpr int64_t step = kGradSliceRowsPerStep;
    auto loadGroup = [&](Value r) {
      SmallVector<Value> ys;
      for (int64_t h = 0; h < step; ++h)
        ys.push_back(k.load(
            slices, {k.min(k.add(row0, k.add(r, k.idx(h))), lastRow), s}));
      return ys;
    };
    // Each element's G goes where its slice was read (in place: the same
    // thread read it before, in program order; no other thread touches it).
    auto emitRow = [&](Value row, Value y) {
      Value theta = sh.slicesPhase ? decodePhase(k, y) : k.mulf(y, dt);
      Value g = arith::TruncFOp::create(
          k.b, sh.inputElement,
          emitGradValue(k, P, theta, coef, /*inRange=*/sh.slicesPhase));
      if (inPlace)
        g = arith::BitcastOp::create(k.b, i16, g);
      k.store(g, gradOut, {row, s});
    };
    // Groups of `step` rows, the next group's loads issued before this
    // group's harmonics; then the remaining rows one by one.
    Value countN = arith::AndIOp::create(k.b, count, k.idx(~(step - 1)));
    SmallVector<Value> first = loadGroup(k.idx(0));
    k.forEach(k.idx(0), countN, k.idx(step), first,
              [&](Value r, ValueRange current) {
                SmallVector<Value> ahead = loadGroup(k.add(r, k.idx(step)));
                for (int64_t h = 0; h < step; ++h)
                  emitRow(k.add(row0, k.add(r, k.idx(h))), current[h]);
                return ahead;
              });
    k.forEach(countN, count, k.idx(1), [&](Value r) {
      Value row = k.add(row0, r);
      emitRow(row, k.load(slices, {row, s}));
    });
  });
  return func;
}

gpu::GPUFuncOp mlir::sigreg::buildProjectTransposeWgmmaKernel(
    OpBuilder &b, Location loc, const ProjectTransposeShape &sh) {
  WgmmaTypes t(b.getContext(), sh.inputElement, sh.tiling, /*kMajorB=*/true);
  OpBuilder::InsertionGuard guard(b);
  KernelBuilder k(loc, b);
  MemRefType dxType =
      MemRefType::get({sh.rows, sh.featureDim}, sh.outputElement);
  SmallVector<Type> rest = {dxType};
  if (sh.scaled)
    rest.push_back(MemRefType::get({}, b.getF32Type()));
  if (sh.rowPart)
    rest.push_back(b.getI32Type());
  WgmmaKernel kn =
      createWgmmaKernel(b, k, loc, t,
                        sh.rowPart ? "sigreg_project_transpose_wgmma_rows"
                                   : "sigreg_project_transpose_wgmma",
                        "backward_gemm", rest, sh.numSlices);
  Value dx = kn.rest[0];
  Value d0 = k.mul(k.blockId(Dimension::x), k.idx(t.slices));
  Value rowTile = k.blockId(Dimension::y);
  if (sh.rowPart)
    rowTile = k.add(rowTile, arith::IndexCastOp::create(k.b, k.b.getIndexType(),
                                                        kn.rest.back()));
  Value r0 = k.mul(rowTile, k.idx(kRows));
  emitOneTileGemm(k, t, kn, r0, d0, [&](Value yTile, ValueRange) {
    Value scale = sh.scaled ? k.load(kn.rest[1], {}) : Value();
    emitTileStore(k, t, yTile, dx, kn.tid, r0, d0, sh.rows, sh.featureDim,
                  scale);
  });
  gpu::ReturnOp::create(k.b);
  return kn.func;
}
