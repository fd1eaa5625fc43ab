//===- CudaDriver.h - CUDA driver API opened with dlopen --------*- C++ -*-===//
//
// A thin, checked wrapper over the few CUDA driver API entry points the
// runtime needs. libcuda.so.1 is opened with dlopen at first use, so binaries
// linking this library start (and report "no CUDA driver") on machines
// without a GPU. No CUDA header is needed: the handful of types and enum
// values used are declared here.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_RUNTIME_CUDADRIVER_H
#define SIGREG_RUNTIME_CUDADRIVER_H

#include "sigreg/Runtime/Manifest.h"
#include "sigreg/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sigreg {
namespace runtime {

// Driver API types (ABI-compatible with cuda.h).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;

/// Properties of one device.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0;
  int ccMinor = 0;
  int multiprocessors = 0;
  int l2CacheBytes = 0;
  int maxSharedPerBlockOptin = 0;
  size_t totalMemoryBytes = 0;
  int driverVersion = 0; // e.g. 13000 for CUDA 13.0
};

/// Per-kernel resource usage reported by the driver after JIT.
struct FunctionInfo {
  int numRegisters = 0;
  int staticSharedBytes = 0;
  int localBytes = 0;
  int maxThreadsPerBlock = 0;
};

/// The process-wide driver. Obtain it with CudaDriver::get(); all methods
/// check the driver's return code and report the failing function with the
/// driver's error name and string.
class CudaDriver {
public:
  /// Opens libcuda.so.1, resolves the entry points, calls cuInit and checks
  /// that a device exists. The result is computed once per process. Returns
  /// nullptr and sets `err` ("no CUDA driver (libcuda.so.1 not found)", "no
  /// CUDA device", ...) on failure.
  static CudaDriver *get(std::string &err);

  /// Retains device `ordinal`'s primary context (the one the CUDA runtime,
  /// and so PyTorch, uses for that device) and makes it current on the
  /// calling thread. Idempotent; every device of the process may have one.
  Status initContext(int ordinal = 0);
  /// Makes device `ordinal`'s retained primary context current on the
  /// calling thread (initContext first).
  Status makeCurrent(int ordinal);
  int deviceCount() const { return numDevices; }
  Status deviceInfo(int ordinal, DeviceInfo &info);

  // Modules. loadModulePtx JIT-compiles PTX text; on failure the message
  // includes ptxas' error log.
  Status loadModulePtx(const std::string &ptx, CUmodule &module,
                       std::string *infoLog = nullptr);
  Status unloadModule(CUmodule module);
  Status getFunction(CUmodule module, const std::string &name,
                     CUfunction &function);
  Status functionInfo(CUfunction function, FunctionInfo &info);
  /// How many CTAs of `blockThreads` threads and `sharedBytes` of dynamic
  /// shared memory one multiprocessor holds at once; -1 when the driver does
  /// not export the occupancy query.
  Status maxActiveBlocksPerMultiprocessor(CUfunction function, int blockThreads,
                                          size_t sharedBytes, int &blocks);
  /// Allows `bytes` of dynamic shared memory (needed above 48 KiB).
  Status setMaxDynamicShared(CUfunction function, int bytes);
  /// The share of the unified L1/shared memory, in percent of the maximum,
  /// that `function` prefers as shared memory (the driver's carveout hint).
  Status setSharedCarveout(CUfunction function, int percent);

  /// Whether the driver exports cuTensorMapEncodeTiled (CUDA 12 and later;
  /// resolved optionally so older drivers still run other artifacts).
  bool hasTensorMapEncode() const;
  /// Encodes `desc` for the tensor starting at `address` with
  /// cuTensorMapEncodeTiled into `tensorMap` (kTensorMapBytes bytes, aligned
  /// to kTensorMapAlign). Host-only: allowed during stream capture.
  Status encodeTensorMap(void *tensorMap, const TensorMapDesc &desc,
                         CUdeviceptr address);

  // Memory. Async variants are stream-ordered and graph-capturable.
  Status memAlloc(CUdeviceptr &ptr, size_t bytes);
  Status memFree(CUdeviceptr ptr);
  Status memsetD32Async(CUdeviceptr ptr, uint32_t value, size_t count,
                        CUstream stream);
  Status memsetD8Async(CUdeviceptr ptr, uint8_t value, size_t count,
                       CUstream stream);
  Status memcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
  Status memcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
  Status memcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
  Status memcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                         CUstream stream);

  // Streams and launches.
  Status streamCreate(CUstream &stream); // non-blocking stream
  Status streamDestroy(CUstream stream);
  Status streamSynchronize(CUstream stream);
  Status ctxSynchronize();
  Status launchKernel(CUfunction function, const unsigned grid[3],
                      const unsigned block[3], unsigned sharedBytes,
                      CUstream stream, void **params);
  /// An L2 access policy window: accesses to [base, base + bytes) persist
  /// in L2's set-aside portion with probability hitRatio, the others
  /// stream.
  struct AccessWindow {
    CUdeviceptr base = 0;
    size_t bytes = 0;
    float hitRatio = 0;
  };
  /// A launch, through cuLaunchKernelEx where it has attributes: with
  /// `programmatic`, programmatic stream serialization
  /// (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the kernel may
  /// start once every block of the previous kernel in the stream has run
  /// griddepcontrol.launch_dependents, or exited, and must run
  /// griddepcontrol.wait before it reads that kernel's results); with
  /// `window` (if not null), the launch's access policy window
  /// (CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW); with `cooperative`, a
  /// cooperative launch (CU_LAUNCH_ATTRIBUTE_COOPERATIVE: every CTA resident
  /// at once, or an error). Without cuLaunchKernelEx (a driver before CUDA
  /// 12) a plain launch: griddepcontrol.wait then returns at once, and the
  /// window, a hint, is dropped; a cooperative launch is then an error.
  Status launchKernelEx(CUfunction function, const unsigned grid[3],
                        const unsigned block[3], unsigned sharedBytes,
                        CUstream stream, void **params, bool programmatic,
                        const AccessWindow *window, bool cooperative = false);
  /// The device's largest L2 set-aside for persisting accesses and largest
  /// access policy window, in bytes (0 where the device or driver has none).
  Status persistingL2Limits(int ordinal, size_t &setAside, size_t &window);
  /// Sets the current context's L2 set-aside for persisting accesses
  /// (cuCtxSetLimit, CU_LIMIT_PERSISTING_L2_CACHE_SIZE).
  Status setPersistingL2(size_t bytes);

  // Events.
  Status eventCreate(CUevent &event);
  Status eventDestroy(CUevent event);
  Status eventRecord(CUevent event, CUstream stream);
  Status eventSynchronize(CUevent event);
  Status eventElapsedMs(CUevent start, CUevent end, float &ms);

  // Graphs: capture of a stream, instantiate, replay.
  Status beginCapture(CUstream stream);
  Status endCapture(CUstream stream, CUgraph &graph);
  /// Whether `stream` is capturing a graph (active or invalidated).
  Status isCapturing(CUstream stream, bool &capturing);
  Status graphInstantiate(CUgraph graph, CUgraphExec &exec);
  Status graphLaunch(CUgraphExec exec, CUstream stream);
  Status graphExecDestroy(CUgraphExec exec);
  Status graphDestroy(CUgraph graph);

  /// Formats a driver error: "fn: CUDA_ERROR_X (description)".
  std::string describe(const char *function, CUresult result) const;

  struct Api; // resolved entry points (defined in CudaDriver.cpp)

private:
  CudaDriver() = default;
  Status check(const char *function, CUresult result) const;

  Api *api = nullptr;
  int numDevices = 0;
  /// The retained primary contexts, by ordinal (null until initContext).
  std::vector<CUcontext> contexts;
};

/// RAII owner of an instantiated CUDA graph captured from a stream.
class CudaGraph {
public:
  CudaGraph() = default;
  CudaGraph(const CudaGraph &) = delete;
  CudaGraph &operator=(const CudaGraph &) = delete;
  CudaGraph(CudaGraph &&other) noexcept;
  CudaGraph &operator=(CudaGraph &&other) noexcept;
  ~CudaGraph();

  /// Takes ownership of a captured graph and its instantiation.
  void reset(CudaDriver *driver, CUgraph graph, CUgraphExec exec);
  bool valid() const { return exec != nullptr; }
  Status launch(CUstream stream) const;

private:
  void release();
  CudaDriver *driver = nullptr;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

} // namespace runtime
} // namespace sigreg

#endif // SIGREG_RUNTIME_CUDADRIVER_H
