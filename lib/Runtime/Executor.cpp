//===- Executor.cpp - Runs an AOT artifact's step list --------------------===//

#include "sigreg/Runtime/Executor.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace sigreg::runtime;

namespace {
constexpr int kDefaultSharedLimit = 48 * 1024;
constexpr size_t kAllocAlign = 256;
/// The bytes the executor allocates for a buffer of `bytes`.
uint64_t allocationBytes(uint64_t bytes) {
  return (bytes + kAllocAlign - 1) / kAllocAlign * kAllocAlign;
}

template <typename T> uint64_t toBits(T value) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "arg wider than a slot");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

/// Parses "sm_90", "sm_90a", "sm_100" into 90/100; -1 if unrecognized.
int parseChip(const std::string &chip) {
  if (chip.rfind("sm_", 0) != 0)
    return -1;
  int v = 0;
  size_t i = 3;
  for (; i < chip.size() && chip[i] >= '0' && chip[i] <= '9'; ++i)
    v = v * 10 + (chip[i] - '0');
  return i > 3 ? v : -1;
}
} // namespace

std::string sigreg::runtime::cooperativeGridError(size_t index,
                                                  const std::string &kernel,
                                                  int64_t ctas, int blocksPerSM,
                                                  const DeviceInfo &device) {
  if (blocksPerSM < 0 ||
      ctas <= int64_t(blocksPerSM) * int64_t(device.multiprocessors))
    return "";
  return "step " + std::to_string(index) + " (launch " + kernel +
         ") is a cooperative launch of " + std::to_string(ctas) +
         " CTAs, all resident at once, but device " +
         std::to_string(device.ordinal) + " (" + device.name + ", " +
         std::to_string(device.multiprocessors) + " multiprocessors) holds " +
         std::to_string(int64_t(blocksPerSM) * device.multiprocessors) +
         ": the artifact was compiled for the 132 multiprocessors of an H100 "
         "or H200 SXM; compile it again with --wgmma-cooperative=0";
}

Status Executor::create(const Manifest &manifest, const std::string &ptx,
                        std::unique_ptr<Executor> &out, int device) {
  std::unique_ptr<Executor> e(new Executor());
  SIGREG_RETURN_IF_ERROR(e->init(manifest, ptx, device));
  out = std::move(e);
  return Status::success();
}

Status Executor::init(const Manifest &manifest, const std::string &ptx,
                      int device) {
  m = manifest;
  std::string err;
  drv = CudaDriver::get(err);
  if (!drv)
    return Status::error(err);
  SIGREG_RETURN_IF_ERROR(drv->initContext(device));
  SIGREG_RETURN_IF_ERROR(drv->deviceInfo(device, dev));
  int chip = parseChip(m.chip);
  int have = dev.ccMajor * 10 + dev.ccMinor;
  if (chip > 0 && have < chip)
    return Status::error("artifact targets " + m.chip + " but device " +
                         std::to_string(device) + " (" + dev.name + ") is sm_" +
                         std::to_string(have));
  SIGREG_RETURN_IF_ERROR(drv->streamCreate(ownStream));
  strm = ownStream;
  SIGREG_RETURN_IF_ERROR(drv->loadModulePtx(ptx, module)
                             .withContext("loading PTX '" + m.ptx + "'"));

  // Regions in order of first appearance.
  stepRegion.resize(m.steps.size());
  for (size_t i = 0; i < m.steps.size(); ++i) {
    int r = -1;
    for (size_t j = 0; j < regionNames.size(); ++j)
      if (regionNames[j] == m.steps[i].region)
        r = static_cast<int>(j);
    if (r < 0) {
      r = static_cast<int>(regionNames.size());
      regionNames.push_back(m.steps[i].region);
    }
    stepRegion[i] = r;
  }

  // Resolve each kernel once; raise its dynamic shared memory limit to the
  // largest launch that needs it.
  stepFunction.assign(m.steps.size(), nullptr);
  stepArgValues.resize(m.steps.size());
  stepArgPtrs.resize(m.steps.size());
  stepArgTensorMap.resize(m.steps.size());
  std::vector<int> maxShared;
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step &s = m.steps[i];
    if (s.op != StepOp::Launch)
      continue;
    size_t k = 0;
    while (k < kernelReports.size() && kernelReports[k].name != s.kernel)
      ++k;
    if (k == kernelReports.size()) {
      CUfunction f = nullptr;
      SIGREG_RETURN_IF_ERROR(drv->getFunction(module, s.kernel, f));
      KernelReport report;
      report.name = s.kernel;
      SIGREG_RETURN_IF_ERROR(drv->functionInfo(f, report.info));
      kernelReports.push_back(report);
      maxShared.push_back(0);
      stepFunction[i] = f;
    } else {
      // Same name, same module: same handle.
      for (size_t j = 0; j < i; ++j)
        if (stepFunction[j] && m.steps[j].kernel == s.kernel)
          stepFunction[i] = stepFunction[j];
    }
    int shared = static_cast<int>(s.sharedBytes);
    if (shared > maxShared[k])
      maxShared[k] = shared;
    stepArgValues[i].assign(s.args.size(), 0);
    stepArgPtrs[i].resize(s.args.size());
    stepArgTensorMap[i].assign(s.args.size(), -1);
    for (size_t a = 0; a < s.args.size(); ++a) {
      stepArgPtrs[i][a] = &stepArgValues[i][a];
      if (s.args[a].kind != KernelArg::Kind::TensorMap)
        continue;
      if (!drv->hasTensorMapEncode())
        return Status::error(
            "step " + std::to_string(i) + " (launch " + s.kernel +
            ") argument " + std::to_string(a) +
            ": the artifact passes a TMA tensor map but this CUDA driver does "
            "not export cuTensorMapEncodeTiled (CUDA 12 or later needed)");
      stepArgTensorMap[i][a] = static_cast<int>(tensorMaps.size());
      tensorMaps.push_back(std::make_unique<TensorMapSlot>());
      stepArgPtrs[i][a] = tensorMaps.back()->bytes;
    }
  }
  for (size_t k = 0; k < kernelReports.size(); ++k) {
    if (maxShared[k] <= kDefaultSharedLimit)
      continue;
    if (maxShared[k] > dev.maxSharedPerBlockOptin)
      return Status::error(
          "kernel '" + kernelReports[k].name + "' needs " +
          std::to_string(maxShared[k]) +
          " bytes of dynamic shared memory; the device allows " +
          std::to_string(dev.maxSharedPerBlockOptin));
    for (size_t i = 0; i < m.steps.size(); ++i)
      if (stepFunction[i] && m.steps[i].kernel == kernelReports[k].name) {
        SIGREG_RETURN_IF_ERROR(
            drv->setMaxDynamicShared(stepFunction[i], maxShared[k])
                .withContext("kernel '" + kernelReports[k].name + "'"));
        break;
      }
  }

  // A cooperative launch's CTAs must all be resident at once.
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step &s = m.steps[i];
    if (s.op != StepOp::Launch || !s.cooperative)
      continue;
    int blocks = -1;
    SIGREG_RETURN_IF_ERROR(
        drv->maxActiveBlocksPerMultiprocessor(
               stepFunction[i],
               static_cast<int>(s.block[0] * s.block[1] * s.block[2]),
               s.sharedBytes, blocks)
            .withContext("kernel '" + s.kernel + "'"));
    int64_t ctas = int64_t(s.grid[0]) * s.grid[1] * s.grid[2];
    std::string why = cooperativeGridError(i, s.kernel, ctas, blocks, dev);
    if (!why.empty())
      return Status::error(why);
  }

  // The buffers each step reads or writes (by index), for ensureAllocated;
  // the index of each name a step refers to, for enqueueStep (the manifest
  // parser checked that every name exists).
  stepBuffers.assign(m.steps.size(), {});
  stepOpBuffers.assign(m.steps.size(), {-1, -1, -1});
  stepArgIndex.assign(m.steps.size(), {});
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step &s = m.steps[i];
    std::vector<int> &uses = stepBuffers[i];
    const std::string *names[3] = {&s.buffer, &s.dst, &s.src};
    for (int n = 0; n < 3; ++n)
      if (!names[n]->empty()) {
        stepOpBuffers[i][n] = m.findBuffer(*names[n]);
        uses.push_back(stepOpBuffers[i][n]);
      }
    for (const KernelArg &arg : s.args) {
      int index = -1;
      if (arg.kind == KernelArg::Kind::Buffer ||
          arg.kind == KernelArg::Kind::TensorMap) {
        index = m.findBuffer(arg.name);
        uses.push_back(index);
      } else if (arg.kind == KernelArg::Kind::Scalar) {
        index = m.findScalar(arg.name);
      }
      stepArgIndex[i].push_back(index);
    }
  }
  // l2_persist buffers, where SIGREG_L2_PERSIST=1 asks for them: the steps
  // that take one launch with an access policy window over it, within an L2
  // set-aside of the device's largest size, at most the buffers' bytes (a
  // hint: the results are the same without it). Off by default: the
  // set-aside is the context's (cuCtxSetLimit), and the lines stay
  // persisting after the run, so the caller's next kernels get less L2.
  stepPersist.assign(m.steps.size(), -1);
  uint64_t persistBytes = 0;
  for (const BufferDesc &b : m.buffers)
    if (b.l2Persist)
      persistBytes += b.bytes;
  const char *on = getenv("SIGREG_L2_PERSIST");
  if (persistBytes && on && std::string(on) == "1") {
    for (size_t i = 0; i < m.steps.size(); ++i)
      for (int b : stepBuffers[i])
        if (b >= 0 && m.buffers[b].l2Persist && stepPersist[i] < 0)
          stepPersist[i] = b;
    size_t setAside = 0;
    SIGREG_RETURN_IF_ERROR(
        drv->persistingL2Limits(device, setAside, l2MaxWindow));
    if (setAside && l2MaxWindow) {
      l2SetAside = std::min<uint64_t>(setAside, persistBytes);
      SIGREG_RETURN_IF_ERROR(drv->setPersistingL2(l2SetAside));
    }
  }
  // Buffers get memory when first needed unbound (ensureAllocated), so that
  // a caller that binds its own (the PyTorch module's inputs, outputs and
  // per-call workspaces) pays no device memory for them. zero_init
  // workspaces (self-resetting counters) are allocated and zeroed now, once.
  owned.assign(m.buffers.size(), 0);
  ownedSize.assign(m.buffers.size(), 0);
  bound.assign(m.buffers.size(), 0);
  sharedBy.assign(m.buffers.size(), -1);
  for (size_t i = 0; i < m.buffers.size(); ++i)
    if (!m.buffers[i].sharesWith.empty())
      sharedBy[m.findBuffer(m.buffers[i].sharesWith)] = static_cast<int>(i);
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    if (!m.buffers[i].zeroInit)
      continue;
    SIGREG_RETURN_IF_ERROR(allocate(i));
    SIGREG_RETURN_IF_ERROR(
        drv->memsetD8Async(owned[i], 0, m.buffers[i].bytes, strm)
            .withContext("zeroing buffer '" + m.buffers[i].name + "'"));
    SIGREG_RETURN_IF_ERROR(drv->streamSynchronize(strm));
  }
  scalarBits.assign(m.scalars.size(), 0);
  scalarSet.assign(m.scalars.size(), false);
  return Status::success();
}

Executor::~Executor() {
  // Nothing to release when creation failed before acquiring anything.
  if (!drv || (!ownStream && !module && owned.empty()))
    return;
  auto warn = [](const Status &s) {
    if (!s.ok())
      std::fprintf(stderr, "warning: %s\n", s.message().c_str());
  };
  warn(drv->makeCurrent(dev.ordinal));
  if (ownStream)
    warn(drv->streamSynchronize(ownStream));
  for (CUevent e : events)
    warn(drv->eventDestroy(e));
  for (CUdeviceptr p : owned)
    if (p)
      warn(drv->memFree(p));
  if (module)
    warn(drv->unloadModule(module));
  if (ownStream)
    warn(drv->streamDestroy(ownStream));
}

bool Executor::placeShared(size_t w, size_t o) {
  const BufferDesc &b = m.buffers[w];
  if (!owned[o] || bound[o] != owned[o] ||
      ownedSize[o] < b.sharesOffset + b.bytes)
    return false;
  bound[w] = owned[o] + b.sharesOffset;
  return true;
}

Status Executor::allocate(size_t i) {
  // A workspace that may share an output's allocation, and that output:
  // one allocation where neither has memory yet (the bytes the phased step
  // saves, docs/AOT.md), else each its own.
  int w = m.buffers[i].sharesWith.empty() ? sharedBy[i] : static_cast<int>(i);
  int o = w < 0 ? -1 : m.findBuffer(m.buffers[w].sharesWith);
  if (w == static_cast<int>(i) && placeShared(i, o))
    return Status::success();
  size_t bytes = allocationBytes(m.buffers[i].bytes);
  bool joint = w >= 0 && !bound[w] && !bound[o];
  size_t target = joint ? static_cast<size_t>(o) : i;
  if (joint)
    bytes = allocationBytes(std::max(
        m.buffers[o].bytes, m.buffers[w].sharesOffset + m.buffers[w].bytes));
  SIGREG_RETURN_IF_ERROR(
      drv->memAlloc(owned[target], bytes)
          .withContext("buffer '" + m.buffers[i].name + "'"));
  ownedSize[target] = bytes;
  bound[target] = owned[target];
  if (joint)
    placeShared(static_cast<size_t>(w), static_cast<size_t>(o));
  return Status::success();
}

uint64_t Executor::ownedBytes() const {
  uint64_t total = 0;
  for (uint64_t bytes : ownedSize)
    total += bytes;
  return total;
}

Status Executor::ensureAllocated(size_t i) {
  if (bound[i])
    return Status::success();
  // cuMemAlloc is not allowed while a stream captures a graph (it would
  // invalidate the capture): say what to do instead.
  bool capturing = false;
  SIGREG_RETURN_IF_ERROR(drv->isCapturing(strm, capturing));
  if (capturing)
    return Status::error(
        "buffer '" + m.buffers[i].name +
        "' has no memory yet and the stream is capturing a CUDA graph: bind "
        "it, or run the artifact once before the capture");
  return allocate(i);
}

Status Executor::ensureAllocated(Phase phase) {
  SIGREG_RETURN_IF_ERROR(drv->makeCurrent(dev.ordinal));
  for (size_t i = 0; i < m.steps.size(); ++i)
    if (phase == Phase::All ||
        m.steps[i].backward == (phase == Phase::Backward))
      for (int b : stepBuffers[i])
        SIGREG_RETURN_IF_ERROR(ensureAllocated(static_cast<size_t>(b)));
  return Status::success();
}

void Executor::useStream(CUstream stream) {
  strm = stream ? stream : ownStream;
}

int Executor::bufferIndex(std::string_view name, Status &status) const {
  int i = m.findBuffer(name);
  if (i < 0)
    status = Status::error("unknown buffer '" + std::string(name) + "'");
  return i;
}

Status Executor::bufferPointer(std::string_view name, CUdeviceptr &ptr) {
  Status s;
  int i = bufferIndex(name, s);
  if (i < 0)
    return s;
  SIGREG_RETURN_IF_ERROR(drv->makeCurrent(dev.ordinal));
  SIGREG_RETURN_IF_ERROR(ensureAllocated(static_cast<size_t>(i)));
  ptr = bound[i];
  return Status::success();
}

Status Executor::bindBuffer(std::string_view name, CUdeviceptr ptr) {
  Status s;
  int i = bufferIndex(name, s);
  if (i < 0)
    return s;
  return bindBufferAt(i, ptr);
}

Status Executor::bindBufferAt(int index, CUdeviceptr ptr) {
  if (index < 0 || static_cast<size_t>(index) >= m.buffers.size())
    return Status::error("no buffer at index " + std::to_string(index) + " (" +
                         std::to_string(m.buffers.size()) + " buffers)");
  // A kernel that reads the buffer in aligned pieces (bulk copies into
  // shared memory) would fault on a misaligned address: refused here.
  uint64_t align = m.buffers[index].align;
  if (ptr % align != 0) {
    char where[32];
    std::snprintf(where, sizeof(where), "0x%llx",
                  static_cast<unsigned long long>(ptr));
    return Status::error("buffer '" + m.buffers[index].name + "' bound at " +
                         where + ", which is not " + std::to_string(align) +
                         "-byte aligned as its kernels read it (pass a " +
                         "tensor whose data starts at an aligned address, " +
                         "e.g. a fresh copy)");
  }
  bound[index] = ptr ? ptr : owned[index];
  return Status::success();
}

Status Executor::upload(std::string_view name, const void *data, size_t bytes) {
  Status s;
  int i = bufferIndex(name, s);
  if (i < 0)
    return s;
  if (bytes > m.buffers[i].bytes)
    return Status::error("upload of " + std::to_string(bytes) +
                         " bytes into buffer '" + std::string(name) + "' of " +
                         std::to_string(m.buffers[i].bytes) + " bytes");
  SIGREG_RETURN_IF_ERROR(drv->makeCurrent(dev.ordinal));
  SIGREG_RETURN_IF_ERROR(ensureAllocated(static_cast<size_t>(i)));
  // Work already queued on our (non-blocking) stream may still use the
  // buffer; the synchronous copy does not order with it.
  SIGREG_RETURN_IF_ERROR(drv->streamSynchronize(strm));
  SIGREG_RETURN_IF_ERROR(
      drv->memcpyHtoD(bound[i], data, bytes)
          .withContext("upload '" + std::string(name) + "'"));
  // A pageable HtoD copy may return before the DMA lands; later work goes to
  // a non-blocking stream that does not wait for it.
  return drv->ctxSynchronize();
}

Status Executor::download(std::string_view name, void *data, size_t bytes) {
  Status s;
  int i = bufferIndex(name, s);
  if (i < 0)
    return s;
  if (bytes > m.buffers[i].bytes)
    return Status::error("download of " + std::to_string(bytes) +
                         " bytes from buffer '" + std::string(name) + "' of " +
                         std::to_string(m.buffers[i].bytes) + " bytes");
  SIGREG_RETURN_IF_ERROR(drv->makeCurrent(dev.ordinal));
  SIGREG_RETURN_IF_ERROR(ensureAllocated(static_cast<size_t>(i)));
  SIGREG_RETURN_IF_ERROR(drv->streamSynchronize(strm));
  return drv->memcpyDtoH(data, bound[i], bytes)
      .withContext("download '" + std::string(name) + "'");
}

Status Executor::poisonOutputs(uint32_t pattern) {
  SIGREG_RETURN_IF_ERROR(drv->makeCurrent(dev.ordinal));
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    if (m.buffers[i].role != BufferRole::Output)
      continue;
    SIGREG_RETURN_IF_ERROR(ensureAllocated(i));
    uint64_t bytes = m.buffers[i].bytes;
    if (bytes >= 4)
      SIGREG_RETURN_IF_ERROR(
          drv->memsetD32Async(bound[i], pattern, bytes / 4, strm));
    if (bytes % 4)
      SIGREG_RETURN_IF_ERROR(
          drv->memsetD8Async(bound[i] + bytes / 4 * 4, 0xFF, bytes % 4, strm));
  }
  return Status::success();
}

Status Executor::setScalarInt(std::string_view name, int64_t value) {
  int i = m.findScalar(name);
  if (i < 0)
    return Status::error("unknown scalar '" + std::string(name) + "'");
  switch (m.scalars[i].type) {
  case ScalarType::I32:
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<uint32_t>::max())
      return Status::error("value " + std::to_string(value) +
                           " does not fit i32 scalar '" + std::string(name) +
                           "'");
    scalarBits[i] = toBits(static_cast<uint32_t>(value));
    break;
  case ScalarType::I64:
    scalarBits[i] = toBits(value);
    break;
  default:
    return Status::error("scalar '" + std::string(name) + "' is " +
                         toString(m.scalars[i].type) +
                         ", set it with setScalarFloat");
  }
  scalarSet[i] = true;
  return Status::success();
}

Status Executor::setScalarFloat(std::string_view name, double value) {
  int i = m.findScalar(name);
  if (i < 0)
    return Status::error("unknown scalar '" + std::string(name) + "'");
  switch (m.scalars[i].type) {
  case ScalarType::F32:
    scalarBits[i] = toBits(static_cast<float>(value));
    break;
  case ScalarType::F64:
    scalarBits[i] = toBits(value);
    break;
  default:
    return Status::error("scalar '" + std::string(name) + "' is " +
                         toString(m.scalars[i].type) +
                         ", set it with setScalarInt");
  }
  scalarSet[i] = true;
  return Status::success();
}

Status Executor::checkScalarsSet() const {
  for (size_t i = 0; i < m.scalars.size(); ++i)
    if (!scalarSet[i])
      return Status::error("scalar '" + m.scalars[i].name +
                           "' was not set before running");
  return Status::success();
}

std::string Executor::stepContext(size_t index) const {
  const Step &s = m.steps[index];
  return "step " + std::to_string(index) + " (" + toString(s.op) +
         (s.kernel.empty() ? "" : " ") + s.kernel + ")";
}

Status Executor::enqueueStep(size_t index) {
  // Per call of a training step this runs once per launch: the names were
  // resolved to indices at creation (stepArgIndex, stepOpBuffers) and the
  // error context is formed only when there is an error.
  const Step &s = m.steps[index];
  const std::vector<int> &idx = stepArgIndex[index];
  const std::array<int, 3> &ops = stepOpBuffers[index];
  auto withWhere = [&](Status st) {
    return st.ok() ? st : st.withContext(stepContext(index));
  };
  switch (s.op) {
  case StepOp::Memset32:
    return withWhere(
        drv->memsetD32Async(bound[ops[0]] + s.offset, s.value, s.count, strm));
  case StepOp::Memset8:
    return withWhere(drv->memsetD8Async(bound[ops[0]] + s.offset,
                                        static_cast<uint8_t>(s.value), s.count,
                                        strm));
  case StepOp::Copy:
    return withWhere(drv->memcpyDtoDAsync(bound[ops[1]] + s.dstOffset,
                                          bound[ops[2]] + s.srcOffset, s.bytes,
                                          strm));
  case StepOp::Launch:
    break;
  }
  std::vector<uint64_t> &vals = stepArgValues[index];
  for (size_t a = 0; a < s.args.size(); ++a) {
    const KernelArg &arg = s.args[a];
    switch (arg.kind) {
    case KernelArg::Kind::Buffer:
      vals[a] = toBits(bound[idx[a]] + arg.offset);
      break;
    case KernelArg::Kind::Scalar:
      vals[a] = scalarBits[idx[a]];
      break;
    case KernelArg::Kind::I32:
      vals[a] = toBits(static_cast<uint32_t>(arg.intValue));
      break;
    case KernelArg::Kind::I64:
      vals[a] = toBits(arg.intValue);
      break;
    case KernelArg::Kind::F32:
      vals[a] = toBits(static_cast<float>(arg.floatValue));
      break;
    case KernelArg::Kind::F64:
      vals[a] = toBits(arg.floatValue);
      break;
    case KernelArg::Kind::TensorMap: {
      // Encoded on the host (allowed during capture); only when the address
      // differs from the one the stored map describes.
      TensorMapSlot &slot = *tensorMaps[stepArgTensorMap[index][a]];
      CUdeviceptr address = bound[idx[a]] + arg.offset;
      if (slot.encoded && slot.encodedFor == address)
        break;
      slot.encoded = false;
      Status st = drv->encodeTensorMap(slot.bytes, arg.tensorMap, address);
      if (!st.ok())
        return st.withContext(stepContext(index) + " argument " +
                              std::to_string(a) + " (tensor map of buffer '" +
                              arg.name + "')");
      slot.encoded = true;
      slot.encodedFor = address;
      break;
    }
    }
  }
  // cuLaunchKernel copies the parameter values at the call (all 128 bytes of
  // a tensor map too), so the storage can be reused by the next run, also
  // under graph capture: a captured graph keeps the values of its capture.
  // An l2_persist buffer's lines persist in L2 while this launch runs, the
  // share of them that fits the set-aside (docs/AOT.md, "l2_persist").
  CudaDriver::AccessWindow window;
  int p = stepPersist[index];
  if (p >= 0 && l2SetAside) {
    window.base = bound[p];
    window.bytes = std::min<size_t>(m.buffers[p].bytes, l2MaxWindow);
    window.hitRatio = static_cast<float>(
        std::min(1.0, double(l2SetAside) / double(window.bytes)));
  }
  return withWhere(drv->launchKernelEx(
      stepFunction[index], s.grid.data(), s.block.data(), s.sharedBytes, strm,
      stepArgPtrs[index].data(), s.programmatic,
      window.bytes ? &window : nullptr, s.cooperative));
}

Status Executor::run(Phase phase) {
  SIGREG_RETURN_IF_ERROR(checkScalarsSet());
  SIGREG_RETURN_IF_ERROR(ensureAllocated(phase));
  for (size_t i = 0; i < m.steps.size(); ++i)
    if (phase == Phase::All ||
        m.steps[i].backward == (phase == Phase::Backward))
      SIGREG_RETURN_IF_ERROR(enqueueStep(i));
  return Status::success();
}

Status Executor::runTimed(std::vector<RegionTime> &regionTimes) {
  SIGREG_RETURN_IF_ERROR(checkScalarsSet());
  SIGREG_RETURN_IF_ERROR(ensureAllocated(Phase::All));
  while (events.size() < 2 * m.steps.size()) {
    CUevent e = nullptr;
    SIGREG_RETURN_IF_ERROR(drv->eventCreate(e));
    events.push_back(e);
  }
  for (size_t i = 0; i < m.steps.size(); ++i) {
    SIGREG_RETURN_IF_ERROR(drv->eventRecord(events[2 * i], strm));
    SIGREG_RETURN_IF_ERROR(enqueueStep(i));
    SIGREG_RETURN_IF_ERROR(drv->eventRecord(events[2 * i + 1], strm));
  }
  SIGREG_RETURN_IF_ERROR(drv->eventSynchronize(events.back()));
  regionTimes.assign(regionNames.size(), RegionTime());
  for (size_t r = 0; r < regionNames.size(); ++r)
    regionTimes[r].region = regionNames[r];
  for (size_t i = 0; i < m.steps.size(); ++i) {
    float ms = 0.0f;
    SIGREG_RETURN_IF_ERROR(
        drv->eventElapsedMs(events[2 * i], events[2 * i + 1], ms));
    regionTimes[stepRegion[i]].ms += ms;
  }
  return Status::success();
}

Status Executor::captureGraph(CudaGraph &graph) {
  SIGREG_RETURN_IF_ERROR(checkScalarsSet());
  // Memory first: no allocation may happen under the capture.
  SIGREG_RETURN_IF_ERROR(ensureAllocated(Phase::All));
  SIGREG_RETURN_IF_ERROR(drv->beginCapture(strm));
  Status body = run();
  CUgraph g = nullptr;
  // Always end the capture so the stream leaves capture mode.
  Status end = drv->endCapture(strm, g);
  if (!body.ok() || !end.ok()) {
    if (g)
      (void)drv->graphDestroy(g);
    return (!body.ok() ? body : end).withContext("capturing CUDA graph");
  }
  CUgraphExec exec = nullptr;
  Status inst = drv->graphInstantiate(g, exec);
  if (!inst.ok()) {
    (void)drv->graphDestroy(g);
    return inst;
  }
  graph.reset(drv, g, exec);
  return Status::success();
}

Status Executor::setSharedCarveout(int percent) {
  if (percent < 0 || percent > 100)
    return Status::error("shared-memory carveout must be 0-100 percent, got " +
                         std::to_string(percent));
  for (size_t i = 0; i < m.steps.size(); ++i)
    if (stepFunction[i])
      SIGREG_RETURN_IF_ERROR(drv->setSharedCarveout(stepFunction[i], percent)
                                 .withContext("step " + std::to_string(i) +
                                              " (launch " + m.steps[i].kernel +
                                              ")"));
  return Status::success();
}

Status Executor::synchronize() {
  SIGREG_RETURN_IF_ERROR(drv->makeCurrent(dev.ordinal));
  return drv->streamSynchronize(strm);
}
