//===- Artifact.cpp - AOT artifacts: PTX + manifest -----------------------===//

#include "sigreg/Compiler/Artifact.h"
#include "sigreg/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::sigreg;

llvm::json::Object
mlir::sigreg::problemToJson(const ::sigreg::runtime::ProblemDesc &p) {
  llvm::json::Object o{{"V", p.V},
                       {"N", p.N},
                       {"D", p.D},
                       {"S", p.S},
                       {"P", p.P},
                       {"t_max", p.tMax},
                       {"clip", p.clip},
                       {"clip_value", p.clipValue},
                       {"reduction", p.reduction},
                       {"dtype", p.dtype},
                       {"projection", p.projection},
                       {"views", p.views}};
  // Only when set, so that forward manifests stay as they were.
  if (p.gradient)
    o["gradient"] = true;
  if (p.step)
    o["step"] = true;
  if (p.step && p.dxDtype != "f32")
    o["dx_dtype"] = p.dxDtype;
  if (!p.entryPoint.empty())
    o["entry_point"] = p.entryPoint;
  return o;
}

StringRef mlir::sigreg::stringifyPipeline(GpuPipelineKind kind) {
  return kind == GpuPipelineKind::Fused ? "fused" : "naive";
}

FailureOr<Artifact>
mlir::sigreg::compileForCuda(ModuleOp module, StringRef entry,
                             const ::sigreg::runtime::ProblemDesc &problem,
                             GpuPipelineKind kind,
                             const GpuPipelineOptions &options) {
  OwningOpRef<ModuleOp> clone(module.clone());
  PassManager pm(module.getContext());
  if (kind == GpuPipelineKind::Fused)
    buildGpuPipeline(pm, options);
  else
    buildNaiveGpuPipeline(pm, options);
  if (failed(pm.run(*clone)))
    return failure();
  return extractArtifact(*clone, entry, problem, stringifyPipeline(kind),
                         options.chip);
}

namespace {
int64_t elementBytes(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

std::string dtypeOf(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  if (t.isInteger(8))
    return "i8";
  return "";
}

/// Walks the host function and records buffers, scalars and steps.
class ManifestBuilder {
public:
  /// The names of the function's memref arguments, in order (inputs, then
  /// outputs), by the entry's kind (inputNames, outputNames).
  ManifestBuilder(func::FuncOp func, const ::sigreg::runtime::ProblemDesc &p)
      : func(func), problem(p) {}

  LogicalResult build(llvm::json::Array &buffers, llvm::json::Array &scalars,
                      llvm::json::Array &steps, std::string &kernelModule);

private:
  struct BufferRef {
    std::string name;
    int64_t offset = 0;
  };
  FailureOr<BufferRef> bufferOf(Value v, Operation *user);
  FailureOr<llvm::json::Value> argOf(Value v, Operation *user);
  LogicalResult tensorMapOf(nvgpu::TmaCreateDescriptorOp op);

  func::FuncOp func;
  ::sigreg::runtime::ProblemDesc problem;
  /// A launch marked kPhaseAttrName came: later steps are backward too.
  bool backwardPhase = false;
  DenseMap<Value, BufferRef> buffers;
  DenseMap<Value, std::string> scalarArgs;
  /// Ranked type of each memref.cast to an unranked memref (the TMA source).
  DenseMap<Value, MemRefType> rankedSource;
  /// The manifest's "tensor_map" object of each descriptor value (the
  /// nvgpu.tma.create.descriptor result and its casts to !llvm.ptr).
  DenseMap<Value, llvm::json::Object> tensorMaps;
};

/// Swizzle span in bytes (0: no swizzle) and the manifest spelling.
std::pair<int64_t, StringRef> swizzleOf(nvgpu::TensorMapSwizzleKind k) {
  switch (k) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
    return {0, "none"};
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
    return {32, "32b"};
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
    return {64, "64b"};
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
    return {128, "128b"};
  }
  return {-1, ""};
}

StringRef l2PromotionOf(nvgpu::TensorMapL2PromoKind k) {
  switch (k) {
  case nvgpu::TensorMapL2PromoKind::L2PROMO_NONE:
    return "none";
  case nvgpu::TensorMapL2PromoKind::L2PROMO_64B:
    return "64b";
  case nvgpu::TensorMapL2PromoKind::L2PROMO_128B:
    return "128b";
  case nvgpu::TensorMapL2PromoKind::L2PROMO_256B:
    return "256b";
  }
  return "";
}

/// Interleave granule in bytes (0: none) and the manifest spelling.
std::pair<int64_t, StringRef> interleaveOf(nvgpu::TensorMapInterleaveKind k) {
  switch (k) {
  case nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE:
    return {0, "none"};
  case nvgpu::TensorMapInterleaveKind::INTERLEAVE_16B:
    return {16, "16b"};
  case nvgpu::TensorMapInterleaveKind::INTERLEAVE_32B:
    return {32, "32b"};
  }
  return {-1, ""};
}

llvm::json::Object bufferJson(StringRef name, StringRef role, MemRefType t) {
  llvm::json::Array shape;
  for (int64_t d : t.getShape())
    shape.push_back(d);
  return llvm::json::Object{
      {"name", name.str()},
      {"role", role.str()},
      {"bytes", t.getNumElements() * elementBytes(t.getElementType())},
      {"dtype", dtypeOf(t.getElementType())},
      {"shape", std::move(shape)}};
}

FailureOr<ManifestBuilder::BufferRef>
ManifestBuilder::bufferOf(Value v, Operation *user) {
  auto it = buffers.find(v);
  if (it != buffers.end())
    return it->second;
  return user->emitOpError("uses a memref the AOT manifest cannot name "
                           "(only arguments, allocations and their reshapes)");
}

/// The tensor map of `nvgpu.tma.create.descriptor %u box[...]` where %u is
/// a memref.cast of a named buffer to an unranked memref. The manifest wants
/// the driver's order, innermost dimension first (as upstream's
/// mgpuTensorMapEncodeTiledMemref reverses sizes, strides and box), and the
/// driver's rules are checked here so that a bad descriptor fails at compile
/// time at the op.
LogicalResult ManifestBuilder::tensorMapOf(nvgpu::TmaCreateDescriptorOp op) {
  Value src = op.getTensor();
  auto ranked = rankedSource.find(src);
  if (ranked == rankedSource.end())
    return op.emitOpError("needs its tensor to be a memref.cast of a buffer "
                          "the AOT manifest names");
  FailureOr<BufferRef> ref = bufferOf(src, op);
  if (failed(ref))
    return failure();
  MemRefType t = ranked->second;
  if (!t.hasStaticShape() || !t.getLayout().isIdentity())
    return op.emitOpError("needs a static shape and identity layout, got ")
           << t;
  Type elem = t.getElementType();
  std::string dtype = elem.isInteger(32) ? "i32" : dtypeOf(elem);
  if (dtype != "bf16" && dtype != "f16" && dtype != "f32" && dtype != "i32")
    return op.emitOpError("tensor maps support bf16, f16, f32 and i32, not ")
           << elem;
  int64_t rank = t.getRank();
  if (rank < 1 || rank > 5)
    return op.emitOpError("tensor map rank ") << rank << " is not in [1, 5]";
  if (static_cast<int64_t>(op.getBoxDimensions().size()) != rank)
    return op.emitOpError("has ")
           << op.getBoxDimensions().size() << " box sizes for a rank-" << rank
           << " tensor";
  auto desc = op.getTensorMap().getType();
  MemRefType tile = desc.getTensor();
  if (tile.getElementType() != elem)
    return op.emitOpError("descriptor element type ")
           << tile.getElementType() << " differs from the tensor's " << elem;
  int64_t ebytes = elementBytes(elem);
  SmallVector<int64_t> box; // outermost first, as the op writes it
  for (auto [i, v] : llvm::enumerate(op.getBoxDimensions())) {
    std::optional<int64_t> c = getConstantIntValue(v);
    if (!c)
      return op.emitOpError("needs constant box sizes (box[") << i << "])";
    if (*c < 1 || *c > 256)
      return op.emitOpError("box[")
             << i << "] = " << *c << " is not in [1, 256]";
    box.push_back(*c);
  }
  if (tile.getRank() != rank || tile.getShape() != ArrayRef<int64_t>(box))
    return op.emitOpError("box does not match the descriptor's tile ") << tile;
  auto [span, swizzle] = swizzleOf(desc.getSwizzle());
  auto [granule, interleave] = interleaveOf(desc.getInterleave());
  int64_t innerBytes = box.back() * ebytes;
  if (granule == 0 && innerBytes % 16)
    return op.emitOpError("inner box of ")
           << innerBytes << " bytes is not a multiple of 16";
  if (granule == 0 && span && innerBytes > span)
    return op.emitOpError("inner box of ")
           << innerBytes << " bytes exceeds the " << span
           << "-byte swizzle span";
  if (granule && rank < 3)
    return op.emitOpError("interleaved tensor maps need rank >= 3");
  if (granule == 32 && span != 32)
    return op.emitOpError("32b interleave requires 32b swizzle");
  int64_t align = granule == 32 ? 32 : 16;
  if (ref->offset % align)
    return op.emitOpError("tensor base offset ")
           << ref->offset << " is not a multiple of " << align << " bytes";
  bool nan = desc.getOob() == nvgpu::TensorMapOOBKind::OOB_NAN;
  if (nan && dtype == "i32")
    return op.emitOpError("nan out-of-bounds fill needs a float type");

  llvm::json::Array dims, strides, boxJson;
  ArrayRef<int64_t> shape = t.getShape();
  int64_t stride = ebytes; // bytes between consecutive elements of dim r
  for (int64_t r = rank - 1; r >= 0; --r) {
    if (shape[r] < 1 || shape[r] > (int64_t(1) << 32))
      return op.emitOpError("dimension ")
             << r << " of size " << shape[r] << " is not in [1, 2^32]";
    if (r != rank - 1) {
      if (stride % align || stride >= (int64_t(1) << 40))
        return op.emitOpError("stride of dimension ")
               << r << " (" << stride << " bytes) must be a multiple of "
               << align << " below 2^40";
      strides.push_back(stride);
    }
    dims.push_back(shape[r]);
    boxJson.push_back(box[r]);
    stride *= shape[r];
  }
  llvm::json::Object o{{"buffer", ref->name},
                       {"offset", ref->offset},
                       {"dtype", dtype},
                       {"dims", std::move(dims)},
                       {"strides", std::move(strides)},
                       {"box", std::move(boxJson)},
                       {"swizzle", swizzle},
                       {"l2_promotion", l2PromotionOf(desc.getL2promo())},
                       {"oob_fill", nan ? "nan" : "zero"},
                       {"interleave", interleave}};
  tensorMaps[op.getResult()] = std::move(o);
  return success();
}

FailureOr<llvm::json::Value> ManifestBuilder::argOf(Value v, Operation *user) {
  auto map = tensorMaps.find(v);
  if (map != tensorMaps.end())
    return llvm::json::Value(
        llvm::json::Object{{"tensor_map", llvm::json::Object(map->second)}});
  if (isa<MemRefType>(v.getType())) {
    FailureOr<BufferRef> ref = bufferOf(v, user);
    if (failed(ref))
      return failure();
    llvm::json::Object o{{"buffer", ref->name}};
    if (ref->offset)
      o["offset"] = ref->offset;
    return llvm::json::Value(std::move(o));
  }
  auto scalar = scalarArgs.find(v);
  if (scalar != scalarArgs.end())
    return llvm::json::Value(llvm::json::Object{{"scalar", scalar->second}});
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr))) {
    if (auto i = dyn_cast<IntegerAttr>(attr)) {
      bool is32 = i.getType().isInteger(32);
      return llvm::json::Value(
          llvm::json::Object{{is32 ? "i32" : "i64", i.getInt()}});
    }
    if (auto f = dyn_cast<FloatAttr>(attr))
      return llvm::json::Value(llvm::json::Object{
          {f.getType().isF32() ? "f32" : "f64", f.getValueAsDouble()}});
  }
  return user->emitOpError("has a kernel operand the AOT manifest cannot "
                           "express: ")
         << v;
}

LogicalResult ManifestBuilder::build(llvm::json::Array &bufferList,
                                     llvm::json::Array &scalarList,
                                     llvm::json::Array &steps,
                                     std::string &kernelModule) {
  // Arguments: x, then seed (i64 scalar), step (i64 buffer) or proj, then the
  // entry's other inputs (grad; dcos and dsin), then the outputs.
  SmallVector<std::string> names = {"x"};
  if (problem.projection == "explicit")
    names.push_back("proj");
  else if (problem.projection == "step")
    names.push_back("step"); // the counter: read, then advanced by one
  if (problem.gradient || problem.step)
    names.push_back("grad");
  if (problem.entryPoint == "ecf_backward")
    names.append({"dcos", "dsin"});
  size_t numInputs = names.size();
  if (problem.entryPoint == "ecf")
    names.append({"cos", "sin"});
  else
    names.push_back("out");
  if (problem.step)
    names.push_back("dx");
  unsigned memrefIndex = 0;
  for (BlockArgument arg : func.getArguments()) {
    if (auto t = dyn_cast<MemRefType>(arg.getType())) {
      if (memrefIndex >= names.size())
        return func.emitError("the AOT manifest names ")
               << names.size() << " buffers for this entry, the function has "
               << "more memref arguments";
      bool isOutput = memrefIndex >= numInputs;
      std::string name = names[memrefIndex++];
      llvm::json::Object buffer =
          bufferJson(name, isOutput ? "output" : "input", t);
      // x read by bulk copies into shared memory (convert-sigreg-to-gpu's
      // kXAlignAttrName): the runtime refuses a misaligned binding.
      if (name == "x")
        if (auto align = func->getAttrOfType<IntegerAttr>(kXAlignAttrName))
          buffer["align"] = align.getInt();
      bufferList.push_back(std::move(buffer));
      buffers[arg] = {name, 0};
    } else if (arg.getType().isInteger(64)) {
      scalarList.push_back(
          llvm::json::Object{{"name", "seed"}, {"type", "i64"}});
      scalarArgs[arg] = "seed";
    } else {
      return func.emitError("unsupported argument type in the AOT manifest: ")
             << arg.getType();
    }
  }
  unsigned numWorkspaces = 0;
  for (Operation &op : func.getBody().front()) {
    if (isa<arith::ConstantOp, memref::DeallocOp, func::ReturnOp>(op))
      continue;
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape())
        return alloc.emitOpError("needs a static shape in the AOT manifest");
      std::string name = "ws" + std::to_string(numWorkspaces++);
      llvm::json::Object buffer =
          bufferJson(name, "workspace", alloc.getType());
      if (alloc->hasAttr("sigreg.zero_init"))
        buffer["zero_init"] = true;
      if (alloc->hasAttr(kL2PersistAttrName))
        buffer["l2_persist"] = true;
      if (auto shares =
              alloc->getAttrOfType<DictionaryAttr>(kSharesResultAttrName)) {
        auto result = shares.getAs<IntegerAttr>("result");
        auto offset = shares.getAs<IntegerAttr>("offset");
        if (!result || !offset || result.getInt() < 0 ||
            numInputs + result.getInt() >= names.size() || offset.getInt() < 0)
          return alloc.emitOpError("has a malformed ")
                 << kSharesResultAttrName << ": " << shares;
        buffer["shares"] =
            llvm::json::Object{{"buffer", names[numInputs + result.getInt()]},
                               {"offset", offset.getInt()}};
      }
      bufferList.push_back(std::move(buffer));
      buffers[alloc.getResult()] = {name, 0};
      continue;
    }
    if (auto view = dyn_cast<memref::ViewOp>(op)) {
      // Bytes viewed as a typed buffer at a constant byte shift (two such
      // views share one workspace: the backward's dL/dy over the phases).
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      FailureOr<BufferRef> ref = bufferOf(view.getSource(), &op);
      if (!shift || *shift < 0 || !view.getSizes().empty())
        return view.emitOpError("needs a constant byte shift and a static "
                                "shape in the AOT manifest");
      if (failed(ref))
        return failure();
      buffers[view.getResult()] = {ref->name, ref->offset + *shift};
      continue;
    }
    if (auto prefix = dyn_cast<memref::ReinterpretCastOp>(op)) {
      // The first rows of a row-major buffer as a smaller row-major one
      // (offset 0, static shape: the backward's g, the first D rows of the
      // forward's hi + lo split): the same buffer.
      auto from = dyn_cast<MemRefType>(prefix.getSource().getType());
      MemRefType to = prefix.getType();
      int64_t offset;
      SmallVector<int64_t> strides;
      bool rowMajor = from && from.getLayout().isIdentity() &&
                      from.hasStaticShape() && to.hasStaticShape() &&
                      succeeded(to.getStridesAndOffset(strides, offset)) &&
                      offset == 0 &&
                      strides == computeSuffixProduct(to.getShape());
      if (!rowMajor || from.getElementType() != to.getElementType() ||
          to.getNumElements() > from.getNumElements())
        return prefix.emitOpError(
            "cannot be expressed in the AOT manifest (only a row-major "
            "prefix of a buffer, at offset 0 with static shapes)");
      FailureOr<BufferRef> ref = bufferOf(prefix.getSource(), &op);
      if (failed(ref))
        return failure();
      buffers[prefix.getResult()] = *ref;
      continue;
    }
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op)) {
      FailureOr<BufferRef> ref = bufferOf(op.getOperand(0), &op);
      if (failed(ref))
        return failure();
      buffers[op.getResult(0)] = *ref;
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(op)) {
      // Only the ranked -> unranked cast feeding a TMA descriptor.
      auto from = dyn_cast<MemRefType>(cast.getSource().getType());
      if (!from || !isa<UnrankedMemRefType>(cast.getType()))
        return cast.emitOpError("cannot be expressed in the AOT manifest "
                                "(only ranked -> unranked casts of buffers "
                                "that feed nvgpu.tma.create.descriptor)");
      FailureOr<BufferRef> ref = bufferOf(cast.getSource(), &op);
      if (failed(ref))
        return failure();
      buffers[cast.getResult()] = *ref;
      rankedSource[cast.getResult()] = from;
      continue;
    }
    if (auto tma = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op)) {
      if (failed(tensorMapOf(tma)))
        return failure();
      continue;
    }
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op)) {
      // The descriptor as the !llvm.ptr the kernel operand has after
      // lowering: the same tensor map.
      auto map = cast.getNumOperands() == 1 && cast.getNumResults() == 1
                     ? tensorMaps.find(cast.getOperand(0))
                     : tensorMaps.end();
      if (map == tensorMaps.end())
        return cast.emitOpError("cannot be expressed in the AOT manifest "
                                "(only casts of TMA descriptors)");
      tensorMaps[cast.getResult(0)] = llvm::json::Object(map->second);
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      FailureOr<BufferRef> src = bufferOf(copy.getSource(), &op);
      FailureOr<BufferRef> dst = bufferOf(copy.getTarget(), &op);
      if (failed(src) || failed(dst))
        return failure();
      auto t = cast<MemRefType>(copy.getSource().getType());
      steps.push_back(llvm::json::Object{
          {"op", "copy"},
          {"src", src->name},
          {"src_offset", src->offset},
          {"dst", dst->name},
          {"dst_offset", dst->offset},
          {"bytes", t.getNumElements() * elementBytes(t.getElementType())}});
      if (backwardPhase)
        (*steps.back().getAsObject())["phase"] = "backward";
      continue;
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      auto dims = [&](gpu::KernelDim3 d) -> FailureOr<llvm::json::Array> {
        llvm::json::Array a;
        for (Value v : {d.x, d.y, d.z}) {
          std::optional<int64_t> c = getConstantIntValue(v);
          if (!c)
            return launch.emitOpError("needs constant grid and block sizes");
          a.push_back(*c);
        }
        return a;
      };
      FailureOr<llvm::json::Array> grid =
          dims(launch.getGridSizeOperandValues());
      FailureOr<llvm::json::Array> block =
          dims(launch.getBlockSizeOperandValues());
      if (failed(grid) || failed(block))
        return failure();
      int64_t sharedBytes = 0;
      if (Value size = launch.getDynamicSharedMemorySize()) {
        std::optional<int64_t> c = getConstantIntValue(size);
        if (!c)
          return launch.emitOpError(
              "needs a constant dynamic_shared_memory_size");
        if (*c < 0 || *c > 0x7FFFFFFF)
          return launch.emitOpError("dynamic_shared_memory_size ")
                 << *c << " is out of range";
        sharedBytes = *c;
      }
      llvm::json::Array args;
      for (Value v : launch.getKernelOperands()) {
        FailureOr<llvm::json::Value> arg = argOf(v, &op);
        if (failed(arg))
          return failure();
        args.push_back(std::move(*arg));
      }
      kernelModule = launch.getKernelModuleName().str();
      auto region = launch->getAttrOfType<StringAttr>("sigreg.region");
      llvm::json::Object step{{"op", "launch"},
                              {"kernel", launch.getKernelName().str()},
                              {"region", region ? region.str() : "other"},
                              {"grid", std::move(*grid)},
                              {"block", std::move(*block)},
                              {"shared_bytes", sharedBytes},
                              {"args", std::move(args)}};
      // --convert-sigreg-to-gpu marks a launch that may overlap the one
      // before it (the kernel runs griddepcontrol.wait first).
      if (launch->hasAttr(kProgrammaticLaunchAttrName)) {
        if (steps.empty() ||
            *steps.back().getAsObject()->getString("op") != "launch")
          return launch.emitOpError(
              "is a programmatic launch but does not follow a kernel launch");
        step["programmatic"] = true;
      }
      // A kernel with a grid-wide barrier: every CTA must be resident.
      if (launch->hasAttr(kCooperativeLaunchAttrName))
        step["cooperative"] = true;
      // --convert-sigreg-to-gpu=defer-cotangent=1 marks the launch that
      // starts the backward phase: it and every step after it.
      if (auto phase = launch->getAttrOfType<StringAttr>(kPhaseAttrName)) {
        if (phase.getValue() != "backward")
          return launch.emitOpError("has ")
                 << kPhaseAttrName << " = " << phase << ", not \"backward\"";
        if (steps.empty())
          return launch.emitOpError(
              "starts the backward phase but no step comes before it");
        backwardPhase = true;
      }
      if (backwardPhase)
        step["phase"] = "backward";
      steps.push_back(std::move(step));
      continue;
    }
    return op.emitOpError("cannot be expressed in the AOT manifest");
  }
  return success();
}
} // namespace

FailureOr<Artifact>
mlir::sigreg::extractArtifact(ModuleOp compiled, StringRef entry,
                              const ::sigreg::runtime::ProblemDesc &p,
                              StringRef pipeline, StringRef chip) {
  auto func = compiled.lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return compiled.emitError("no host function '") << entry << "'";
  llvm::json::Array buffers, scalars, steps;
  std::string kernelModule;
  if (failed(ManifestBuilder(func, p).build(buffers, scalars, steps,
                                            kernelModule)))
    return failure();

  Artifact artifact;
  if (!kernelModule.empty()) {
    auto binary = compiled.lookupSymbol<gpu::BinaryOp>(kernelModule);
    if (!binary)
      return compiled.emitError("no gpu.binary '")
             << kernelModule << "' (was the module serialized?)";
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    if (object.getFormat() != gpu::CompilationTarget::Assembly)
      return binary.emitOpError("AOT artifacts carry PTX: serialize with "
                                "format=isa");
    artifact.ptx = object.getObject().getValue().str();
    size_t unresolved = artifact.ptx.find(".extern .func");
    if (unresolved != std::string::npos)
      return binary.emitOpError(
                 "the PTX calls an external function (libdevice was not "
                 "linked): install the CUDA toolkit or point CUDA_HOME at it; ")
             << StringRef(artifact.ptx).substr(unresolved).split('\n').first;
  }

  llvm::json::Object problem = problemToJson(p);
  llvm::json::Object manifest{
      {"format", "sigreg-aot-v1"},     {"function", entry.str()},
      {"pipeline", pipeline.str()},    {"chip", chip.str()},
      {"ptx", "sigreg.ptx"},           {"problem", std::move(problem)},
      {"buffers", std::move(buffers)}, {"scalars", std::move(scalars)},
      {"steps", std::move(steps)}};
  llvm::raw_string_ostream os(artifact.manifestJson);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)));
  return artifact;
}
