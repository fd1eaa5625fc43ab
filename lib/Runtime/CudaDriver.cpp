//===- CudaDriver.cpp - CUDA driver API opened with dlopen ----------------===//

#include "sigreg/Runtime/CudaDriver.h"

#include <dlfcn.h>

#include <cstdio>
#include <mutex>
#include <vector>

using namespace sigreg::runtime;

namespace {
// Enum values from cuda.h (stable ABI).
constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorNoDevice = 100;
constexpr int kJitInfoLogBuffer = 3;
constexpr int kJitInfoLogBufferSizeBytes = 4;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr int kJitLogVerbose = 12;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrL2CacheSize = 38;
constexpr int kAttrCcMajor = 75;
constexpr int kAttrCcMinor = 76;
constexpr int kAttrMaxSharedPerBlockOptin = 97;
constexpr int kFuncAttrMaxThreadsPerBlock = 0;
constexpr int kFuncAttrSharedSizeBytes = 1;
constexpr int kFuncAttrLocalSizeBytes = 3;
constexpr int kFuncAttrNumRegs = 4;
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr int kFuncAttrPreferredSharedCarveout = 9;
constexpr unsigned kStreamNonBlocking = 1;
constexpr int kCaptureModeThreadLocal = 1;
constexpr size_t kLogBytes = 64 * 1024;
// CUtensorMapDataType (cuda.h, CUDA 12/13).
constexpr int kTensorMapInt32 = 3;
constexpr int kTensorMapFloat16 = 6;
constexpr int kTensorMapFloat32 = 7;
constexpr int kTensorMapBFloat16 = 9;
// CUtensorMapInterleave: NONE=0, 16B=1, 32B=2; CUtensorMapSwizzle: NONE=0,
// 32B=1, 64B=2, 128B=3; CUtensorMapL2promotion: NONE=0, 64B=1, 128B=2,
// 256B=3; CUtensorMapFloatOOBfill: NONE (zeros)=0, NAN_REQUEST_ZERO_FMA=1.
// The Manifest.h enums list the same enumerators in the same order.
constexpr int kTensorMapInterleave[] = {0, 1, 2};
constexpr int kTensorMapSwizzle[] = {0, 1, 2, 3};
constexpr int kTensorMapL2Promotion[] = {0, 1, 2, 3};
constexpr int kTensorMapOobFill[] = {0, 1};
} // namespace

struct CudaDriver::Api {
  void *handle = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuStreamIsCapturing)(CUstream, int *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  // Optional (CUDA 12+): null when the driver does not export it.
  CUresult (*cuLaunchKernelEx)(const void *, CUfunction, void **,
                               void **) = nullptr;
  CUresult (*cuCtxSetLimit)(int, size_t) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int,
                                                          size_t) = nullptr;
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int) = nullptr;
};

namespace {
/// Resolves the first of `names` that the driver exports into `fn`.
template <typename Fn>
bool resolve(void *handle, Fn &fn, std::initializer_list<const char *> names,
             std::string &missing) {
  for (const char *name : names) {
    if (void *sym = dlsym(handle, name)) {
      fn = reinterpret_cast<Fn>(sym);
      return true;
    }
  }
  missing = *names.begin();
  return false;
}

bool resolveAll(CudaDriver::Api &a, std::string &missing) {
  void *h = a.handle;
  return resolve(h, a.cuInit, {"cuInit"}, missing) &&
         resolve(h, a.cuDriverGetVersion, {"cuDriverGetVersion"}, missing) &&
         resolve(h, a.cuGetErrorName, {"cuGetErrorName"}, missing) &&
         resolve(h, a.cuGetErrorString, {"cuGetErrorString"}, missing) &&
         resolve(h, a.cuDeviceGetCount, {"cuDeviceGetCount"}, missing) &&
         resolve(h, a.cuDeviceGet, {"cuDeviceGet"}, missing) &&
         resolve(h, a.cuDeviceGetName, {"cuDeviceGetName"}, missing) &&
         resolve(h, a.cuDeviceGetAttribute, {"cuDeviceGetAttribute"},
                 missing) &&
         resolve(h, a.cuDeviceTotalMem, {"cuDeviceTotalMem_v2"}, missing) &&
         resolve(h, a.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"},
                 missing) &&
         resolve(h, a.cuCtxSetCurrent, {"cuCtxSetCurrent"}, missing) &&
         resolve(h, a.cuCtxSynchronize, {"cuCtxSynchronize"}, missing) &&
         resolve(h, a.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}, missing) &&
         resolve(h, a.cuModuleUnload, {"cuModuleUnload"}, missing) &&
         resolve(h, a.cuModuleGetFunction, {"cuModuleGetFunction"}, missing) &&
         resolve(h, a.cuFuncGetAttribute, {"cuFuncGetAttribute"}, missing) &&
         resolve(h, a.cuFuncSetAttribute, {"cuFuncSetAttribute"}, missing) &&
         resolve(h, a.cuMemAlloc, {"cuMemAlloc_v2"}, missing) &&
         resolve(h, a.cuMemFree, {"cuMemFree_v2"}, missing) &&
         resolve(h, a.cuMemsetD32Async, {"cuMemsetD32Async"}, missing) &&
         resolve(h, a.cuMemsetD8Async, {"cuMemsetD8Async"}, missing) &&
         resolve(h, a.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}, missing) &&
         resolve(h, a.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}, missing) &&
         resolve(h, a.cuMemcpyDtoD, {"cuMemcpyDtoD_v2"}, missing) &&
         resolve(h, a.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"}, missing) &&
         resolve(h, a.cuStreamCreate, {"cuStreamCreate"}, missing) &&
         resolve(h, a.cuStreamDestroy, {"cuStreamDestroy_v2"}, missing) &&
         resolve(h, a.cuStreamSynchronize, {"cuStreamSynchronize"}, missing) &&
         resolve(h, a.cuLaunchKernel, {"cuLaunchKernel"}, missing) &&
         resolve(h, a.cuEventCreate, {"cuEventCreate"}, missing) &&
         resolve(h, a.cuEventDestroy, {"cuEventDestroy_v2"}, missing) &&
         resolve(h, a.cuEventRecord, {"cuEventRecord"}, missing) &&
         resolve(h, a.cuEventSynchronize, {"cuEventSynchronize"}, missing) &&
         resolve(h, a.cuEventElapsedTime,
                 {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, missing) &&
         resolve(h, a.cuStreamBeginCapture, {"cuStreamBeginCapture_v2"},
                 missing) &&
         resolve(h, a.cuStreamEndCapture, {"cuStreamEndCapture"}, missing) &&
         resolve(h, a.cuStreamIsCapturing, {"cuStreamIsCapturing"}, missing) &&
         resolve(h, a.cuGraphInstantiateWithFlags,
                 {"cuGraphInstantiateWithFlags"}, missing) &&
         resolve(h, a.cuGraphLaunch, {"cuGraphLaunch"}, missing) &&
         resolve(h, a.cuGraphExecDestroy, {"cuGraphExecDestroy"}, missing) &&
         resolve(h, a.cuGraphDestroy, {"cuGraphDestroy"}, missing);
}

struct DriverSingleton {
  CudaDriver *driver = nullptr;
  std::string error;
};
} // namespace

std::string CudaDriver::describe(const char *function, CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (api && api->cuGetErrorName(result, &name) != kSuccess)
    name = nullptr;
  if (api && api->cuGetErrorString(result, &text) != kSuccess)
    text = nullptr;
  std::string msg = std::string(function) + " failed: ";
  msg += name ? name : ("CUresult " + std::to_string(result));
  if (text)
    msg += std::string(" (") + text + ")";
  return msg;
}

Status CudaDriver::check(const char *function, CUresult result) const {
  if (result == kSuccess)
    return Status::success();
  return Status::error(describe(function, result));
}

CudaDriver *CudaDriver::get(std::string &err) {
  static DriverSingleton *singleton = [] {
    auto *s = new DriverSingleton();
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      s->error = "no CUDA driver (libcuda.so.1 not found)";
      return s;
    }
    auto *api = new Api();
    api->handle = handle;
    std::string missing;
    if (!resolveAll(*api, missing)) {
      s->error = "unusable CUDA driver: libcuda.so.1 does not export " +
                 missing + " (driver too old?)";
      delete api;
      return s;
    }
    std::string optional;
    if (!resolve(handle, api->cuTensorMapEncodeTiled,
                 {"cuTensorMapEncodeTiled"}, optional))
      api->cuTensorMapEncodeTiled = nullptr;
    if (!resolve(handle, api->cuLaunchKernelEx, {"cuLaunchKernelEx"}, optional))
      api->cuLaunchKernelEx = nullptr;
    if (!resolve(handle, api->cuCtxSetLimit, {"cuCtxSetLimit"}, optional))
      api->cuCtxSetLimit = nullptr;
    if (!resolve(handle, api->cuOccupancyMaxActiveBlocksPerMultiprocessor,
                 {"cuOccupancyMaxActiveBlocksPerMultiprocessor"}, optional))
      api->cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;
    auto *driver = new CudaDriver();
    driver->api = api;
    CUresult r = api->cuInit(0);
    if (r == kErrorNoDevice) {
      s->error = "no CUDA device (" + driver->describe("cuInit", r) + ")";
      delete driver;
      return s;
    }
    if (r != kSuccess) {
      s->error =
          "CUDA driver initialization failed: " + driver->describe("cuInit", r);
      delete driver;
      return s;
    }
    int count = 0;
    r = api->cuDeviceGetCount(&count);
    if (r != kSuccess || count <= 0) {
      s->error = r != kSuccess
                     ? "no CUDA device (" +
                           driver->describe("cuDeviceGetCount", r) + ")"
                     : "no CUDA device";
      delete driver;
      return s;
    }
    driver->numDevices = count;
    driver->contexts.assign(static_cast<size_t>(count), nullptr);
    s->driver = driver;
    return s;
  }();
  if (!singleton->driver)
    err = singleton->error;
  return singleton->driver;
}

Status CudaDriver::initContext(int ordinal) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (ordinal < 0 || ordinal >= numDevices)
    return Status::error("CUDA device ordinal " + std::to_string(ordinal) +
                         " out of range (" + std::to_string(numDevices) +
                         " device(s))");
  CUcontext &context = contexts[static_cast<size_t>(ordinal)];
  if (!context) {
    CUdevice device = 0;
    SIGREG_RETURN_IF_ERROR(
        check("cuDeviceGet", api->cuDeviceGet(&device, ordinal)));
    SIGREG_RETURN_IF_ERROR(
        check("cuDevicePrimaryCtxRetain",
              api->cuDevicePrimaryCtxRetain(&context, device)));
  }
  return check("cuCtxSetCurrent", api->cuCtxSetCurrent(context));
}

Status CudaDriver::makeCurrent(int ordinal) {
  // Written once under initContext's lock, before any caller of this for
  // the same ordinal (its executor initialized it first).
  if (ordinal < 0 || ordinal >= numDevices ||
      !contexts[static_cast<size_t>(ordinal)])
    return Status::error("CUDA context of device " + std::to_string(ordinal) +
                         " not initialized (call initContext)");
  return check("cuCtxSetCurrent",
               api->cuCtxSetCurrent(contexts[static_cast<size_t>(ordinal)]));
}

Status CudaDriver::deviceInfo(int ordinal, DeviceInfo &info) {
  CUdevice dev = 0;
  SIGREG_RETURN_IF_ERROR(check("cuDeviceGet", api->cuDeviceGet(&dev, ordinal)));
  char name[256] = {0};
  SIGREG_RETURN_IF_ERROR(
      check("cuDeviceGetName", api->cuDeviceGetName(name, sizeof(name), dev)));
  info.ordinal = ordinal;
  info.name = name;
  struct {
    int attr;
    int *out;
    const char *what;
  } attrs[] = {
      {kAttrCcMajor, &info.ccMajor, "compute capability major"},
      {kAttrCcMinor, &info.ccMinor, "compute capability minor"},
      {kAttrMultiprocessorCount, &info.multiprocessors, "SM count"},
      {kAttrL2CacheSize, &info.l2CacheBytes, "L2 size"},
      {kAttrMaxSharedPerBlockOptin, &info.maxSharedPerBlockOptin,
       "max shared per block (opt-in)"},
  };
  for (auto &a : attrs)
    SIGREG_RETURN_IF_ERROR(check("cuDeviceGetAttribute",
                                 api->cuDeviceGetAttribute(a.out, a.attr, dev))
                               .withContext(a.what));
  SIGREG_RETURN_IF_ERROR(
      check("cuDeviceTotalMem_v2",
            api->cuDeviceTotalMem(&info.totalMemoryBytes, dev)));
  return check("cuDriverGetVersion",
               api->cuDriverGetVersion(&info.driverVersion));
}

Status CudaDriver::loadModulePtx(const std::string &ptx, CUmodule &module,
                                 std::string *infoLog) {
  std::vector<char> errorBuf(kLogBytes, 0), infoBuf(kLogBytes, 0);
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes,
                   kJitInfoLogBuffer, kJitInfoLogBufferSizeBytes,
                   kJitLogVerbose};
  void *values[] = {errorBuf.data(),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogBytes)),
                    infoBuf.data(),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogBytes)),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(1))};
  // The PTX image must be NUL-terminated; std::string::c_str() is.
  CUresult r =
      api->cuModuleLoadDataEx(&module, ptx.c_str(), 5, options, values);
  errorBuf.back() = 0;
  infoBuf.back() = 0;
  if (infoLog)
    *infoLog = infoBuf.data();
  if (r != kSuccess) {
    module = nullptr;
    std::string msg = describe("cuModuleLoadDataEx", r);
    if (errorBuf[0])
      msg += "\nptxas error log:\n" + std::string(errorBuf.data());
    return Status::error(msg);
  }
  return Status::success();
}

Status CudaDriver::unloadModule(CUmodule module) {
  return check("cuModuleUnload", api->cuModuleUnload(module));
}

Status CudaDriver::getFunction(CUmodule module, const std::string &name,
                               CUfunction &function) {
  return check("cuModuleGetFunction",
               api->cuModuleGetFunction(&function, module, name.c_str()))
      .withContext("kernel '" + name + "'");
}

Status CudaDriver::functionInfo(CUfunction function, FunctionInfo &info) {
  SIGREG_RETURN_IF_ERROR(check(
      "cuFuncGetAttribute",
      api->cuFuncGetAttribute(&info.numRegisters, kFuncAttrNumRegs, function)));
  SIGREG_RETURN_IF_ERROR(
      check("cuFuncGetAttribute",
            api->cuFuncGetAttribute(&info.staticSharedBytes,
                                    kFuncAttrSharedSizeBytes, function)));
  SIGREG_RETURN_IF_ERROR(
      check("cuFuncGetAttribute",
            api->cuFuncGetAttribute(&info.localBytes, kFuncAttrLocalSizeBytes,
                                    function)));
  return check("cuFuncGetAttribute",
               api->cuFuncGetAttribute(&info.maxThreadsPerBlock,
                                       kFuncAttrMaxThreadsPerBlock, function));
}

Status CudaDriver::maxActiveBlocksPerMultiprocessor(CUfunction function,
                                                    int blockThreads,
                                                    size_t sharedBytes,
                                                    int &blocks) {
  blocks = -1;
  if (!api->cuOccupancyMaxActiveBlocksPerMultiprocessor)
    return Status::success();
  return check("cuOccupancyMaxActiveBlocksPerMultiprocessor",
               api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                   &blocks, function, blockThreads, sharedBytes));
}

Status CudaDriver::setMaxDynamicShared(CUfunction function, int bytes) {
  return check("cuFuncSetAttribute",
               api->cuFuncSetAttribute(
                   function, kFuncAttrMaxDynamicSharedSizeBytes, bytes));
}

Status CudaDriver::setSharedCarveout(CUfunction function, int percent) {
  return check("cuFuncSetAttribute",
               api->cuFuncSetAttribute(
                   function, kFuncAttrPreferredSharedCarveout, percent));
}

bool CudaDriver::hasTensorMapEncode() const {
  return api && api->cuTensorMapEncodeTiled;
}

Status CudaDriver::encodeTensorMap(void *tensorMap, const TensorMapDesc &desc,
                                   CUdeviceptr address) {
  if (!hasTensorMapEncode())
    return Status::error("the artifact passes TMA tensor maps but this CUDA "
                         "driver does not export cuTensorMapEncodeTiled "
                         "(CUDA 12 or later needed)");
  if (reinterpret_cast<uintptr_t>(tensorMap) % kTensorMapAlign)
    return Status::error("tensor map storage is not 64-byte aligned");
  int dataType = desc.dtype == "bf16"  ? kTensorMapBFloat16
                 : desc.dtype == "f16" ? kTensorMapFloat16
                 : desc.dtype == "f32" ? kTensorMapFloat32
                 : desc.dtype == "i32" ? kTensorMapInt32
                                       : -1;
  size_t rank = desc.dims.size();
  if (dataType < 0 || rank < 1 || rank > kTensorMapMaxRank ||
      desc.strides.size() != rank - 1 || desc.box.size() != rank)
    return Status::error("invalid tensor map description (dtype '" +
                         desc.dtype + "', rank " + std::to_string(rank) + ")");
  // Fixed-size copies: the driver reads rank (rank-1 for strides) entries,
  // and a rank-1 map must not pass a null stride array.
  uint64_t dims[kTensorMapMaxRank] = {0}, strides[kTensorMapMaxRank] = {0};
  uint32_t box[kTensorMapMaxRank] = {0};
  uint32_t elementStrides[kTensorMapMaxRank] = {1, 1, 1, 1, 1};
  for (size_t i = 0; i < rank; ++i) {
    dims[i] = desc.dims[i];
    box[i] = desc.box[i];
    if (i + 1 < rank)
      strides[i] = desc.strides[i];
  }
  return check("cuTensorMapEncodeTiled",
               api->cuTensorMapEncodeTiled(
                   tensorMap, dataType, static_cast<unsigned>(rank),
                   reinterpret_cast<void *>(static_cast<uintptr_t>(address)),
                   dims, strides, box, elementStrides,
                   kTensorMapInterleave[static_cast<int>(desc.interleave)],
                   kTensorMapSwizzle[static_cast<int>(desc.swizzle)],
                   kTensorMapL2Promotion[static_cast<int>(desc.l2Promotion)],
                   kTensorMapOobFill[static_cast<int>(desc.oobFill)]));
}

Status CudaDriver::memAlloc(CUdeviceptr &ptr, size_t bytes) {
  return check("cuMemAlloc_v2", api->cuMemAlloc(&ptr, bytes))
      .withContext("allocating " + std::to_string(bytes) + " bytes");
}

Status CudaDriver::memFree(CUdeviceptr ptr) {
  return check("cuMemFree_v2", api->cuMemFree(ptr));
}

Status CudaDriver::memsetD32Async(CUdeviceptr ptr, uint32_t value, size_t count,
                                  CUstream stream) {
  return check("cuMemsetD32Async",
               api->cuMemsetD32Async(ptr, value, count, stream));
}

Status CudaDriver::memsetD8Async(CUdeviceptr ptr, uint8_t value, size_t count,
                                 CUstream stream) {
  return check("cuMemsetD8Async",
               api->cuMemsetD8Async(ptr, value, count, stream));
}

Status CudaDriver::memcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  return check("cuMemcpyHtoD_v2", api->cuMemcpyHtoD(dst, src, bytes));
}

Status CudaDriver::memcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  return check("cuMemcpyDtoH_v2", api->cuMemcpyDtoH(dst, src, bytes));
}

Status CudaDriver::memcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return check("cuMemcpyDtoD_v2", api->cuMemcpyDtoD(dst, src, bytes));
}

Status CudaDriver::memcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src,
                                   size_t bytes, CUstream stream) {
  return check("cuMemcpyDtoDAsync_v2",
               api->cuMemcpyDtoDAsync(dst, src, bytes, stream));
}

Status CudaDriver::streamCreate(CUstream &stream) {
  return check("cuStreamCreate",
               api->cuStreamCreate(&stream, kStreamNonBlocking));
}

Status CudaDriver::streamDestroy(CUstream stream) {
  return check("cuStreamDestroy_v2", api->cuStreamDestroy(stream));
}

Status CudaDriver::streamSynchronize(CUstream stream) {
  return check("cuStreamSynchronize", api->cuStreamSynchronize(stream));
}

Status CudaDriver::ctxSynchronize() {
  return check("cuCtxSynchronize", api->cuCtxSynchronize());
}

Status CudaDriver::launchKernel(CUfunction function, const unsigned grid[3],
                                const unsigned block[3], unsigned sharedBytes,
                                CUstream stream, void **params) {
  return check("cuLaunchKernel",
               api->cuLaunchKernel(function, grid[0], grid[1], grid[2],
                                   block[0], block[1], block[2], sharedBytes,
                                   stream, params, nullptr));
}

namespace {
// The driver's launch configuration for cuLaunchKernelEx, laid out as
// cuda.h's CUlaunchConfig / CUlaunchAttribute (CUDA 12 and 13).
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
    int cooperative;
    struct {
      void *base;
      size_t bytes;
      float hitRatio;
      int hitProp, missProp; // CUaccessProperty
    } accessPolicyWindow;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute layout");
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
constexpr int kLaunchAttributeAccessPolicyWindow = 1;
constexpr int kLaunchAttributeCooperative = 2;
constexpr int kLaunchAttributeProgrammaticStreamSerialization = 6;
constexpr int kAccessPropertyStreaming = 1, kAccessPropertyPersisting = 2;
constexpr int kLimitPersistingL2CacheSize = 0x06;
constexpr int kAttrMaxPersistingL2CacheSize = 108,
              kAttrMaxAccessPolicyWindowSize = 109;
} // namespace

Status CudaDriver::launchKernelEx(CUfunction function, const unsigned grid[3],
                                  const unsigned block[3], unsigned sharedBytes,
                                  CUstream stream, void **params,
                                  bool programmatic, const AccessWindow *window,
                                  bool cooperative) {
  if (cooperative && !api->cuLaunchKernelEx)
    return Status::error("a cooperative launch needs cuLaunchKernelEx (a "
                         "CUDA 12 or later driver)");
  if (!api->cuLaunchKernelEx || (!programmatic && !window && !cooperative))
    return launchKernel(function, grid, block, sharedBytes, stream, params);
  LaunchAttribute attrs[3] = {};
  unsigned n = 0;
  if (cooperative) {
    attrs[n].id = kLaunchAttributeCooperative;
    attrs[n++].value.cooperative = 1;
  }
  if (programmatic) {
    attrs[n].id = kLaunchAttributeProgrammaticStreamSerialization;
    attrs[n++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (window) {
    attrs[n].id = kLaunchAttributeAccessPolicyWindow;
    auto &w = attrs[n++].value.accessPolicyWindow;
    w.base = reinterpret_cast<void *>(window->base);
    w.bytes = window->bytes;
    w.hitRatio = window->hitRatio;
    w.hitProp = kAccessPropertyPersisting;
    w.missProp = kAccessPropertyStreaming;
  }
  LaunchConfig config{grid[0],  grid[1],     grid[2], block[0], block[1],
                      block[2], sharedBytes, stream,  attrs,    n};
  return check("cuLaunchKernelEx",
               api->cuLaunchKernelEx(&config, function, params, nullptr));
}

Status CudaDriver::persistingL2Limits(int ordinal, size_t &setAside,
                                      size_t &window) {
  setAside = window = 0;
  if (!api->cuLaunchKernelEx || !api->cuCtxSetLimit)
    return Status::success();
  CUdevice dev = 0;
  SIGREG_RETURN_IF_ERROR(check("cuDeviceGet", api->cuDeviceGet(&dev, ordinal)));
  int a = 0, b = 0;
  SIGREG_RETURN_IF_ERROR(
      check("cuDeviceGetAttribute",
            api->cuDeviceGetAttribute(&a, kAttrMaxPersistingL2CacheSize, dev)));
  SIGREG_RETURN_IF_ERROR(check(
      "cuDeviceGetAttribute",
      api->cuDeviceGetAttribute(&b, kAttrMaxAccessPolicyWindowSize, dev)));
  setAside = a > 0 ? static_cast<size_t>(a) : 0;
  window = b > 0 ? static_cast<size_t>(b) : 0;
  return Status::success();
}

Status CudaDriver::setPersistingL2(size_t bytes) {
  if (!api->cuCtxSetLimit)
    return Status::error("cuCtxSetLimit is not available");
  return check("cuCtxSetLimit",
               api->cuCtxSetLimit(kLimitPersistingL2CacheSize, bytes));
}

Status CudaDriver::eventCreate(CUevent &event) {
  return check("cuEventCreate", api->cuEventCreate(&event, 0));
}

Status CudaDriver::eventDestroy(CUevent event) {
  return check("cuEventDestroy_v2", api->cuEventDestroy(event));
}

Status CudaDriver::eventRecord(CUevent event, CUstream stream) {
  return check("cuEventRecord", api->cuEventRecord(event, stream));
}

Status CudaDriver::eventSynchronize(CUevent event) {
  return check("cuEventSynchronize", api->cuEventSynchronize(event));
}

Status CudaDriver::eventElapsedMs(CUevent start, CUevent end, float &ms) {
  return check("cuEventElapsedTime", api->cuEventElapsedTime(&ms, start, end));
}

Status CudaDriver::beginCapture(CUstream stream) {
  return check("cuStreamBeginCapture_v2",
               api->cuStreamBeginCapture(stream, kCaptureModeThreadLocal));
}

Status CudaDriver::isCapturing(CUstream stream, bool &capturing) {
  int status = 0; // CU_STREAM_CAPTURE_STATUS_NONE
  SIGREG_RETURN_IF_ERROR(
      check("cuStreamIsCapturing", api->cuStreamIsCapturing(stream, &status)));
  capturing = status != 0;
  return Status::success();
}

Status CudaDriver::endCapture(CUstream stream, CUgraph &graph) {
  return check("cuStreamEndCapture", api->cuStreamEndCapture(stream, &graph));
}

Status CudaDriver::graphInstantiate(CUgraph graph, CUgraphExec &exec) {
  return check("cuGraphInstantiateWithFlags",
               api->cuGraphInstantiateWithFlags(&exec, graph, 0));
}

Status CudaDriver::graphLaunch(CUgraphExec exec, CUstream stream) {
  return check("cuGraphLaunch", api->cuGraphLaunch(exec, stream));
}

Status CudaDriver::graphExecDestroy(CUgraphExec exec) {
  return check("cuGraphExecDestroy", api->cuGraphExecDestroy(exec));
}

Status CudaDriver::graphDestroy(CUgraph graph) {
  return check("cuGraphDestroy", api->cuGraphDestroy(graph));
}

//===----------------------------------------------------------------------===//
// CudaGraph
//===----------------------------------------------------------------------===//

CudaGraph::CudaGraph(CudaGraph &&other) noexcept { *this = std::move(other); }

CudaGraph &CudaGraph::operator=(CudaGraph &&other) noexcept {
  if (this != &other) {
    release();
    driver = other.driver;
    graph = other.graph;
    exec = other.exec;
    other.driver = nullptr;
    other.graph = nullptr;
    other.exec = nullptr;
  }
  return *this;
}

CudaGraph::~CudaGraph() { release(); }

void CudaGraph::reset(CudaDriver *d, CUgraph g, CUgraphExec e) {
  release();
  driver = d;
  graph = g;
  exec = e;
}

void CudaGraph::release() {
  if (!driver)
    return;
  // Destruction errors are reported but cannot be returned from here.
  if (exec) {
    Status s = driver->graphExecDestroy(exec);
    if (!s.ok())
      std::fprintf(stderr, "warning: %s\n", s.message().c_str());
  }
  if (graph) {
    Status s = driver->graphDestroy(graph);
    if (!s.ok())
      std::fprintf(stderr, "warning: %s\n", s.message().c_str());
  }
  driver = nullptr;
  graph = nullptr;
  exec = nullptr;
}

Status CudaGraph::launch(CUstream stream) const {
  if (!exec)
    return Status::error("launching an empty CUDA graph");
  return driver->graphLaunch(exec, stream);
}
