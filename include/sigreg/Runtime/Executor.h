//===- Executor.h - Runs an AOT artifact's step list ------------*- C++ -*-===//
//
// An Executor owns everything one artifact needs on the device: its buffers,
// the loaded PTX module, the resolved kernels, a non-blocking stream and the
// timing events. It is built from a Manifest plus PTX text (read from an
// artifact directory, or produced in memory by the compiler).
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_RUNTIME_EXECUTOR_H
#define SIGREG_RUNTIME_EXECUTOR_H

#include "sigreg/Runtime/CudaDriver.h"
#include "sigreg/Runtime/Manifest.h"
#include "sigreg/Runtime/Status.h"

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sigreg {
namespace runtime {

/// NaN bit pattern written into outputs before a validation run.
inline constexpr uint32_t kPoisonPattern = 0x7FC00000u;

/// Summed device time of the steps tagged with one region.
struct RegionTime {
  std::string region;
  double ms = 0.0;
};

/// Why step `index`, a cooperative launch of `ctas` CTAs of kernel `kernel`,
/// cannot run on `device` (empty when it can): every CTA of a cooperative
/// launch waits at a grid barrier, so all must be resident at once, at most
/// `blocksPerSM` per multiprocessor (the driver's occupancy; negative: not
/// known, no check). The compiler sizes the grid for the 132
/// multiprocessors of an H100 or H200 SXM.
std::string cooperativeGridError(size_t index, const std::string &kernel,
                                 int64_t ctas, int blocksPerSM,
                                 const DeviceInfo &device);

/// Resources of one kernel after JIT (from the driver).
struct KernelReport {
  std::string name;
  FunctionInfo info;
};

class Executor {
public:
  /// Initializes the driver and the primary context of `device`, loads the
  /// PTX, resolves every kernel once and allocates every buffer. Fails with
  /// "no CUDA driver ..."/"no CUDA device" where there is no GPU.
  static Status create(const Manifest &manifest, const std::string &ptx,
                       std::unique_ptr<Executor> &out, int device = 0);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  const Manifest &manifest() const { return m; }
  CudaDriver &driver() const { return *drv; }
  const DeviceInfo &device() const { return dev; }
  /// The stream every method below enqueues on: the executor's own
  /// non-blocking stream, or the caller's after useStream().
  CUstream stream() const { return strm; }
  /// Enqueue on the caller's `stream` from now on (0: back to the own one).
  /// The caller keeps ownership and keeps the stream alive while in use.
  void useStream(CUstream stream);
  const std::vector<KernelReport> &kernels() const { return kernelReports; }
  /// Region names in order of first appearance in the step list.
  const std::vector<std::string> &regions() const { return regionNames; }

  // Buffers, by manifest name.
  /// Device address currently bound to `name` (the executor's own memory,
  /// allocated now if it has none yet, when nothing is bound).
  Status bufferPointer(std::string_view name, CUdeviceptr &ptr);
  /// Rebinds `name` to caller-owned memory of at least the buffer's size
  /// (e.g. to rotate among input copies); ptr = 0 restores the executor's
  /// own allocation. Affects later run()/captureGraph() calls only. The
  /// executor allocates a buffer's own memory only when a call needs it
  /// unbound (zero_init workspaces at creation): a buffer always bound costs
  /// no device memory. `ptr` must be aligned to the buffer's manifest
  /// "align" (an error naming the buffer otherwise).
  Status bindBuffer(std::string_view name, CUdeviceptr ptr);
  /// bindBuffer of the buffer at `index` in the manifest's order (the C
  /// ABI's per-call path, without a name lookup).
  Status bindBufferAt(int index, CUdeviceptr ptr);
  /// Bytes of device memory the executor allocated itself (rounded up to its
  /// allocation granule).
  uint64_t ownedBytes() const;
  /// Copies host data into the bound buffer (bytes <= buffer size) and
  /// waits for the copy to finish.
  Status upload(std::string_view name, const void *data, size_t bytes);
  /// Waits for the stream, then copies the bound buffer to the host.
  Status download(std::string_view name, void *data, size_t bytes);
  /// Enqueues a fill of every output buffer with `pattern` (32-bit words;
  /// a trailing partial word gets 0xFF bytes).
  Status poisonOutputs(uint32_t pattern = kPoisonPattern);

  // Scalars, by manifest name. Each declared scalar must be set before run().
  Status setScalarInt(std::string_view name, int64_t value);  // i32/i64
  Status setScalarFloat(std::string_view name, double value); // f32/f64

  // Execution. All calls enqueue on stream() unless said otherwise.
  /// Which steps run() enqueues: all, or one phase of a manifest whose last
  /// steps are marked "phase": "backward" (docs/AOT.md: the forward phase
  /// before the cotangent exists, the backward phase with it).
  enum class Phase { All, Forward, Backward };
  /// Enqueues the step list, or one phase of it (no synchronization, no
  /// events).
  Status run(Phase phase = Phase::All);
  /// Runs the step list with an event pair around every step, waits, and
  /// returns the summed time per region (order of first appearance).
  Status runTimed(std::vector<RegionTime> &regionTimes);
  /// Captures the whole step list (with the current bindings and scalar
  /// values) into an instantiated CUDA graph; replay with
  /// graph.launch(stream()).
  Status captureGraph(CudaGraph &graph);
  Status synchronize();
  /// Sets every launched kernel's preferred shared-memory carveout (percent
  /// of the unified L1/shared memory, 0-100; CudaDriver::setSharedCarveout).
  Status setSharedCarveout(int percent);

private:
  Executor() = default;
  Status init(const Manifest &manifest, const std::string &ptx, int device);
  Status enqueueStep(size_t index);
  /// "step I (OP KERNEL)": the context of an error of step `index`.
  std::string stepContext(size_t index) const;
  /// The executor's own memory for buffer i: with a workspace that shares
  /// it ("shares"), one allocation for both where neither is bound yet.
  Status allocate(size_t i);
  /// Binds the sharing workspace `w` into the output `o`'s own allocation
  /// when that allocation has room for it; false when it does not.
  bool placeShared(size_t w, size_t o);
  /// Buffer i, or every buffer of the phase's steps, given memory where
  /// nothing is bound (an error while the stream captures a graph).
  Status ensureAllocated(size_t i);
  Status ensureAllocated(Phase phase);
  Status checkScalarsSet() const;
  int bufferIndex(std::string_view name, Status &status) const;

  Manifest m;
  CudaDriver *drv = nullptr;
  DeviceInfo dev;
  CUstream strm = nullptr;      // stream in use
  CUstream ownStream = nullptr; // created and destroyed by the executor
  CUmodule module = nullptr;
  std::vector<CUdeviceptr> owned;  // per buffer, executor allocation
  std::vector<uint64_t> ownedSize; // its bytes (0 when none)
  std::vector<int> sharedBy;       // per output, the workspace sharing it
  std::vector<CUdeviceptr> bound;  // per buffer, address used by steps
  std::vector<std::vector<int>> stepBuffers; // per step, buffers it uses
  /// Per step, the l2_persist buffer it takes (-1 where none), and the L2
  /// set-aside this executor asked for and the device's largest window (0:
  /// no windows; SIGREG_L2_PERSIST=1 turns them on).
  std::vector<int> stepPersist;
  size_t l2SetAside = 0, l2MaxWindow = 0;
  /// Per step, the buffer index of its memset target, copy destination and
  /// copy source (-1 where none); per step and argument, the buffer (or
  /// tensor map's buffer) or scalar index the argument names (-1 for
  /// immediates).
  std::vector<std::array<int, 3>> stepOpBuffers;
  std::vector<std::vector<int>> stepArgIndex;
  std::vector<uint64_t> scalarBits;
  std::vector<bool> scalarSet;
  std::vector<CUfunction> stepFunction;             // per step (launch only)
  std::vector<std::vector<uint64_t>> stepArgValues; // per step, 8 B per arg
  std::vector<std::vector<void *>> stepArgPtrs;
  /// A tensor_map argument's CUtensorMap, passed by value: kernelParams
  /// points at `bytes`. Encoded for `encodedFor` (the bound buffer address
  /// plus offset) and re-encoded before a launch whose address differs.
  struct TensorMapSlot {
    alignas(kTensorMapAlign) unsigned char bytes[kTensorMapBytes] = {};
    CUdeviceptr encodedFor = 0;
    bool encoded = false;
  };
  std::vector<std::unique_ptr<TensorMapSlot>> tensorMaps;
  std::vector<std::vector<int>> stepArgTensorMap; // per step/arg, -1 if none
  std::vector<int> stepRegion;                    // index into regionNames
  std::vector<std::string> regionNames;
  std::vector<KernelReport> kernelReports;
  std::vector<CUevent> events; // 2 per step, created on first runTimed
};

} // namespace runtime
} // namespace sigreg

#endif // SIGREG_RUNTIME_EXECUTOR_H
