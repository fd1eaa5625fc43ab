//===- TorchOps.cpp - The compiled artifacts as torch operators -----------===//
//
// TORCH_LIBRARY(sigreg): the runtime's C ABI (include/sigreg/Runtime/CApi.h)
// behind torch operators, for the host time of a call (docs/TORCH.md, "The
// ops path"). Through ctypes a call pays a Python allocation of its output, a
// ctypes crossing and Python checks, and a training step a Python
// autograd.Function (10 us on the GPU machine's host before it launches
// anything); here one dispatcher call checks the tensors, allocates the
// output, reads torch's current stream and runs the artifact, and the
// training step's autograd node is a C++ one.
//
// The library uses libtorch's C++ ABI only (no Python C API, no pybind), so
// one build loads under any Python of the same torch build;
// python/sigreg/_ops.py loads it with torch.ops.load_library. It calls the
// copy of libsigreg_aot.so that sigreg.capi loaded with ctypes (linked with
// RUNPATH $ORIGIN, loaded from that library's directory, checked with
// runtime_call_address), because the artifact handles come from there:
// sigreg.capi registers each handle it loads (register_artifact) with what
// the checks need, and the ops refuse a handle that is not registered.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Runtime/CApi.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/autograd/functions/basic_ops.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using at::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// An input or output a caller binds: the dtype the artifact reads it as and
/// its bytes (sigreg.capi's _expected).
struct BufferSpec {
  std::string name;
  at::ScalarType dtype;
  int64_t bytes;
};

/// A workspace the backward phase of a phased step reads: the forward phase
/// writes it, the backward phase reads it, so each call binds its own (in
/// one pack per call, at `offset`).
struct Workspace {
  std::string name;
  int64_t bytes, offset;
};

/// A loaded artifact as the ops see it. With `owned`, the handle is the ops'
/// to destroy: the last reference (sigreg.capi's registration, or an autograd
/// node between a forward and its backward) destroys it, as a Python node
/// keeps its CapiFunction alive.
struct Artifact {
  sigreg_aot *handle = nullptr;
  c10::DeviceIndex device = 0;
  bool owned = false;
  bool seeded = false; // the artifact declares the scalar "seed"
  std::vector<BufferSpec> buffers;
  // The one-call form (sigreg_aot_call): x, the one other input (or -1) and
  // the one output, by index into `buffers`; callable is false where the
  // form does not apply (a training step, an entry point).
  int x = -1, aux = -1, out = -1;
  bool callable = false;
  std::vector<int64_t> outShape; // the call's output, where none is given
  // A phased step: the backward phase's workspaces in one pack of
  // `packBytes`, and the one that may live `sharedOffset` bytes into dL/dx's
  // allocation (docs/AOT.md, "shares"), if any.
  bool phased = false;
  std::vector<Workspace> workspaces;
  int64_t packBytes = 0;
  std::string shared;
  int64_t sharedOffset = 0, sharedBytes = 0;

  // Serializes the runtime's calls on this handle (bind, seed, run: the
  // handle is thread-compatible, not thread-safe; a backward runs on the
  // autograd engine's thread) and guards the spare pack.
  std::mutex mutex;
  // A backward hands its workspace pack to the next forward on the same
  // stream outside graph capture: the same addresses, so the runtime
  // re-encodes no tensor map (what _StepPhased does with its dict).
  Tensor spare;
  c10::StreamId spareStream = 0;
  // The dL/dx allocation that phase_forward returns where no workspace
  // shares it: empty, one for every call (nothing writes it).
  Tensor noDxBuffer;

  Artifact() = default;
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;
  ~Artifact() {
    if (owned && handle)
      sigreg_aot_destroy(handle);
  }

  const BufferSpec *find(const char *name) const {
    for (const BufferSpec &b : buffers)
      if (b.name == name)
        return &b;
    return nullptr;
  }
};

/// The registered artifacts by handle: weak references for the lookups of
/// the ops (an autograd node may hold one past its release) and the strong
/// ones of the registrations.
struct Registry {
  std::mutex mutex;
  std::unordered_map<int64_t, std::weak_ptr<Artifact>> live;
  std::unordered_map<int64_t, std::shared_ptr<Artifact>> registered;
};

/// Never destroyed: no runtime call runs from a static destructor after the
/// CUDA driver has gone (handles still registered at exit are leaked).
Registry &registry() {
  static auto *r = new Registry();
  return *r;
}

std::string hex(int64_t value) {
  std::ostringstream os;
  os << "0x" << std::hex << static_cast<uint64_t>(value);
  return os.str();
}

/// The artifact registered under `handle`, or a ValueError naming `op`.
std::shared_ptr<Artifact> lookup(int64_t handle, const char *op) {
  TORCH_CHECK_VALUE(handle != 0, op, ": the artifact handle is null");
  std::shared_ptr<Artifact> a;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.live.find(handle);
    if (it != r.live.end())
      a = it->second.lock();
  }
  TORCH_CHECK_VALUE(a, op, ": no artifact is registered with handle ",
                    hex(handle),
                    " (sigreg.capi.CapiFunction registers the ones it loads; "
                    "a closed one is gone)");
  return a;
}

/// The torch dtype of a manifest dtype name as sigreg.capi names them.
at::ScalarType parseDtype(const std::string &name) {
  if (name == "bf16")
    return at::kBFloat16;
  if (name == "f16")
    return at::kHalf;
  if (name == "f32")
    return at::kFloat;
  if (name == "i64")
    return at::kLong;
  TORCH_CHECK_VALUE(false, "sigreg::register_artifact: unknown dtype '", name,
                    "' (bf16, f16, f32 or i64)");
  return at::kFloat; // not reached
}

/// As Python prints a dtype, so that the messages read like sigreg.capi's.
std::string dtypeName(at::ScalarType t) {
  switch (t) {
  case at::kBFloat16:
    return "torch.bfloat16";
  case at::kHalf:
    return "torch.float16";
  case at::kFloat:
    return "torch.float32";
  case at::kLong:
    return "torch.int64";
  default:
    return std::string("torch.") + c10::toString(t);
  }
}

/// What sigreg_aot_call and sigreg_aot_bind do not check (they take bare
/// addresses): a tensor of the buffer's dtype and bytes, contiguous, on the
/// CUDA device the artifact was loaded on. A ValueError (TypeError for the
/// dtype) before anything runs, so sigreg.capi can run its own checks then
/// and raise its messages.
void checkTensor(const Tensor &t, const BufferSpec &b, c10::DeviceIndex device,
                 const char *op) {
  TORCH_CHECK_VALUE(t.defined(), op, ": '", b.name, "' is undefined");
  TORCH_CHECK_VALUE(t.is_cuda(), op, ": '", b.name,
                    "' must be a CUDA tensor, it is on ", t.device());
  TORCH_CHECK_VALUE(
      t.get_device() == device, op, ": '", b.name, "' is on ", t.device(),
      ", the artifact was loaded on cuda:", static_cast<int>(device));
  TORCH_CHECK_TYPE(t.scalar_type() == b.dtype, op, ": '", b.name, "' is ",
                   dtypeName(t.scalar_type()), ", the artifact takes ",
                   dtypeName(b.dtype));
  TORCH_CHECK_VALUE(static_cast<int64_t>(t.nbytes()) == b.bytes, op, ": '",
                    b.name, "' has shape ", t.sizes(), " (", t.nbytes(),
                    " bytes), the artifact's buffer has ", b.bytes, " bytes");
  TORCH_CHECK_VALUE(t.is_contiguous(), op, ": '", b.name,
                    "' must be contiguous");
}

/// A workspace pack or dL/dx buffer of a phased step: uint8, contiguous, on
/// the artifact's device, at least `bytes`.
void checkBytes(const Tensor &t, const char *what, int64_t bytes,
                c10::DeviceIndex device, const char *op) {
  TORCH_CHECK_VALUE(t.defined() && t.is_cuda() && t.get_device() == device &&
                        t.scalar_type() == at::kByte && t.is_contiguous() &&
                        static_cast<int64_t>(t.nbytes()) >= bytes,
                    op, ": ", what, " must be a contiguous uint8 tensor of ",
                    bytes, " bytes on cuda:", static_cast<int>(device),
                    " (what the forward phase returned)");
}

const BufferSpec &spec(const Artifact &a, const char *name, const char *op) {
  const BufferSpec *b = a.find(name);
  TORCH_CHECK_VALUE(b, op, ": the artifact has no buffer '", name, "'");
  return *b;
}

/// The step counter ("step", the artifact's projection = "step"): given
/// exactly where the artifact reads one.
void checkCounter(const Artifact &a, const std::optional<Tensor> &counter,
                  const char *op) {
  const BufferSpec *s = a.find("step");
  if (s) {
    TORCH_CHECK_VALUE(counter.has_value() && counter->defined(), op,
                      ": the artifact reads its seed from a step counter: "
                      "pass it (a 0-d int64 CUDA tensor)");
    checkTensor(*counter, *s, a.device, op);
  } else {
    TORCH_CHECK_VALUE(!counter.has_value() || !counter->defined(), op,
                      ": the artifact reads no step counter");
  }
}

uint64_t address(const Tensor &t) {
  return reinterpret_cast<uint64_t>(t.data_ptr());
}

/// Torch's current stream on `device` as the runtime takes it: 0 would mean
/// the runtime's own stream, so torch's default (legacy) stream goes as
/// CU_STREAM_LEGACY (1), as sigreg.capi passes it.
void *runtimeStream(const c10::cuda::CUDAStream &s) {
  cudaStream_t raw = s.stream();
  return raw ? static_cast<void *>(raw)
             : reinterpret_cast<void *>(static_cast<uintptr_t>(1));
}

/// Whether `s` is capturing a CUDA graph (torch's
/// is_current_stream_capturing): a spare pack is neither taken nor handed on
/// then, since the graph keeps the addresses of its capture.
bool capturing(const c10::cuda::CUDAStream &s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  C10_CUDA_CHECK(cudaStreamIsCapturing(s.stream(), &status));
  return status != cudaStreamCaptureStatusNone;
}

// Runtime failures raise RuntimeError("sigreg_aot_<call>: <the runtime's
// message>"); sigreg.capi turns the prefix into its CapiError("<call>:
// ...") so that a call says what the ctypes path says.

void bindBuffer(Artifact &a, const std::string &name, uint64_t ptr) {
  TORCH_CHECK(sigreg_aot_bind(a.handle, name.c_str(), ptr) == 0,
              "sigreg_aot_bind ", name, ": ", sigreg_aot_last_error(a.handle));
}

void setSeed(Artifact &a, int64_t seed) {
  if (a.seeded)
    TORCH_CHECK(sigreg_aot_set_seed(a.handle, seed) == 0,
                "sigreg_aot_set_seed: ", sigreg_aot_last_error(a.handle));
}

void runPhase(Artifact &a, int phase, const c10::cuda::CUDAStream &s) {
  TORCH_CHECK(
      sigreg_aot_run_phase(a.handle, phase, runtimeStream(s)) == 0,
      phase == SIGREG_AOT_PHASE_FORWARD    ? "sigreg_aot_run_phase(forward)"
      : phase == SIGREG_AOT_PHASE_BACKWARD ? "sigreg_aot_run_phase(backward)"
                                           : "sigreg_aot_run",
      ": ", sigreg_aot_last_error(a.handle));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers a handle of sigreg.capi: its device, whether it declares the
/// seed and has a backward phase, each input and output (name, role, dtype,
/// bytes), the shape of the one-call form's output and, for a phased step,
/// the workspaces its backward phase reads and the one that may share
/// dL/dx's allocation ("" if none). `owned`: the ops destroy the handle once
/// it is released and unused (sigreg.capi's handles); false for a handle the
/// caller destroys itself (the tests' fake ones).
void registerArtifact(int64_t handle, int64_t device, bool owned, bool seeded,
                      bool phased, std::vector<std::string> names,
                      std::vector<std::string> roles,
                      std::vector<std::string> dtypes,
                      std::vector<int64_t> bytes, std::vector<int64_t> outShape,
                      std::vector<std::string> workspaces,
                      std::vector<int64_t> workspaceBytes,
                      const std::string &shares, int64_t sharesOffset) {
  constexpr const char *op = "sigreg::register_artifact";
  TORCH_CHECK_VALUE(handle != 0, op, ": the artifact handle is null");
  TORCH_CHECK_VALUE(names.size() == roles.size() &&
                        names.size() == dtypes.size() &&
                        names.size() == bytes.size() &&
                        workspaces.size() == workspaceBytes.size(),
                    op, ": one role, dtype and size per buffer");
  TORCH_CHECK_VALUE(device >= 0 && device < 128, op, ": device ", device);
  auto a = std::make_shared<Artifact>();
  a->device = static_cast<c10::DeviceIndex>(device);
  a->seeded = seeded;
  int inputs = 0, outputs = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    TORCH_CHECK_VALUE(roles[i] == "input" || roles[i] == "output", op,
                      ": role '", roles[i], "' (input or output)");
    TORCH_CHECK_VALUE(bytes[i] >= 0, op, ": ", names[i], " of ", bytes[i],
                      " bytes");
    a->buffers.push_back({names[i], parseDtype(dtypes[i]), bytes[i]});
    int index = static_cast<int>(i);
    if (names[i] == "x" && roles[i] == "input") {
      a->x = index;
    } else if (roles[i] == "output") {
      a->out = index;
      ++outputs;
    } else if (inputs++ == 0) {
      a->aux = index;
    }
  }
  // As planCall (lib/Runtime/HarnessInputs.cpp), which the runtime runs
  // again: x, at most one other input, one output.
  a->callable = a->x >= 0 && inputs <= 1 && outputs == 1;
  a->outShape = std::move(outShape);
  a->phased = phased;
  int64_t offset = 0;
  for (size_t i = 0; i < workspaces.size(); ++i) {
    TORCH_CHECK_VALUE(workspaceBytes[i] >= 0, op, ": workspace ", workspaces[i],
                      " of ", workspaceBytes[i], " bytes");
    if (workspaces[i] == shares) {
      a->shared = shares;
      a->sharedOffset = sharesOffset;
      a->sharedBytes = workspaceBytes[i];
      continue;
    }
    a->workspaces.push_back({workspaces[i], workspaceBytes[i], offset});
    // 256 bytes apart, the runtime's own allocation granule: enough for
    // every kernel (a manifest's "align" is at most 256).
    offset += (workspaceBytes[i] + 255) / 256 * 256;
  }
  TORCH_CHECK_VALUE(shares.empty() || !a->shared.empty(), op, ": '", shares,
                    "' shares dL/dx but is not a workspace of the backward");
  TORCH_CHECK_VALUE(sharesOffset >= 0, op, ": shares_offset ", sharesOffset);
  a->packBytes = offset;
  a->handle = reinterpret_cast<sigreg_aot *>(handle);
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.live.begin(); it != r.live.end();)
    it = it->second.expired() ? r.live.erase(it) : std::next(it);
  // A live handle is one artifact (the runtime reuses no address before it
  // is destroyed), registered once.
  TORCH_CHECK_VALUE(r.live.count(handle) == 0, op, ": handle ", hex(handle),
                    " is registered already");
  // Set last: a failed registration destroys nothing.
  a->owned = owned;
  r.live[handle] = a;
  r.registered[handle] = std::move(a);
}

/// Drops sigreg.capi's reference: the handle is destroyed now, or when the
/// last autograd node that holds it goes.
void releaseArtifact(int64_t handle) {
  std::shared_ptr<Artifact> doomed;
  Registry &r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.registered.find(handle);
    if (it == r.registered.end())
      return;
    doomed = std::move(it->second);
    r.registered.erase(it);
  }
  // The destructor (sigreg_aot_destroy) runs here, outside the lock.
}

/// The address of sigreg_aot_call as this library resolved it, for
/// sigreg._ops to check that the ops call the runtime that sigreg.capi
/// loaded (one copy in the process).
int64_t runtimeCallAddress() {
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(&sigreg_aot_call));
}

//===----------------------------------------------------------------------===//
// call: the one-call form of a loss or gradient artifact
//===----------------------------------------------------------------------===//

Tensor call(const Tensor &x, int64_t handle, int64_t seed,
            const std::optional<Tensor> &aux,
            at::OptionalIntArrayRef givenShape) {
  constexpr const char *op = "sigreg::call";
  std::shared_ptr<Artifact> a = lookup(handle, op);
  TORCH_CHECK_VALUE(a->callable, op,
                    ": the artifact is not called in one (a training step or "
                    "an entry point): bind its buffers and run it");
  checkTensor(x, a->buffers[a->x], a->device, op);
  if (a->aux >= 0) {
    const BufferSpec &b = a->buffers[a->aux];
    TORCH_CHECK_VALUE(aux.has_value() && aux->defined(), op,
                      ": the artifact takes '", b.name, "' besides 'x'");
    checkTensor(*aux, b, a->device, op);
  } else {
    TORCH_CHECK_VALUE(!aux.has_value() || !aux->defined(), op,
                      ": the artifact takes no input besides 'x'");
  }
  const BufferSpec &o = a->buffers[a->out];
  at::IntArrayRef outShape = givenShape ? *givenShape : a->outShape;
  int64_t n = 1;
  for (int64_t d : outShape) {
    TORCH_CHECK_VALUE(d >= 0, op, ": out_shape ", outShape);
    n *= d;
  }
  TORCH_CHECK_VALUE(o.dtype == at::kFloat && 4 * n == o.bytes, op,
                    ": out_shape ", outShape, " is ", 4 * n,
                    " bytes of f32, the artifact's output '", o.name, "' has ",
                    o.bytes);
  // at::empty on x's options: x's device, a device guard inside.
  Tensor out = at::empty(outShape, x.options().dtype(at::kFloat));
  c10::cuda::CUDAStream s = c10::cuda::getCurrentCUDAStream(a->device);
  std::lock_guard<std::mutex> lock(a->mutex);
  TORCH_CHECK(
      sigreg_aot_call(a->handle, runtimeStream(s), address(x),
                      aux.has_value() && aux->defined() ? address(*aux) : 0,
                      address(out), seed) == 0,
      "sigreg_aot_call: ", sigreg_aot_last_error(a->handle));
  return out;
}

const c10::TypedOperatorHandle<Tensor(const Tensor &, int64_t, int64_t,
                                      const std::optional<Tensor> &,
                                      at::OptionalIntArrayRef)> &
callOp() {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("sigreg::call", "")
                       .typed<Tensor(const Tensor &, int64_t, int64_t,
                                     const std::optional<Tensor> &,
                                     at::OptionalIntArrayRef)>();
  return op;
}

/// The Autograd kernel of call: its output is not differentiable (as a
/// tensor from new_empty that a kernel wrote), and an unboxed kernel here
/// costs less than autograd's boxed fallback, which every call would take
/// (a CUDA tensor carries the Autograd key under no_grad too).
Tensor callAutograd(const Tensor &x, int64_t handle, int64_t seed,
                    const std::optional<Tensor> &aux,
                    at::OptionalIntArrayRef outShape) {
  at::AutoDispatchBelowADInplaceOrView guard;
  return callOp().call(x, handle, seed, aux, outShape);
}

Tensor callMeta(const Tensor &x, int64_t handle, int64_t,
                const std::optional<Tensor> &,
                at::OptionalIntArrayRef givenShape) {
  if (givenShape)
    return at::empty(*givenShape, x.options().dtype(at::kFloat));
  return at::empty(lookup(handle, "sigreg::call")->outShape,
                   x.options().dtype(at::kFloat));
}

//===----------------------------------------------------------------------===//
// step_run / step: a training step run whole (_StepCompiled)
//===----------------------------------------------------------------------===//

/// The step artifact at forward time with the cotangent `grad` (the module
/// gives 1): the loss and dL/dx (the artifact's dx dtype, f32 unphased).
std::tuple<Tensor, Tensor> stepRun(const Tensor &x, int64_t handle,
                                   int64_t seed,
                                   const std::optional<Tensor> &counter,
                                   const Tensor &grad) {
  constexpr const char *op = "sigreg::step_run";
  std::shared_ptr<Artifact> a = lookup(handle, op);
  checkTensor(x, spec(*a, "x", op), a->device, op);
  checkTensor(grad, spec(*a, "grad", op), a->device, op);
  checkCounter(*a, counter, op);
  const BufferSpec &out = spec(*a, "out", op), &dxs = spec(*a, "dx", op);
  Tensor loss = at::empty({}, x.options().dtype(at::kFloat));
  Tensor dx = at::empty(x.sizes(), x.options().dtype(dxs.dtype));
  checkTensor(loss, out, a->device, op);
  checkTensor(dx, dxs, a->device, op);
  c10::cuda::CUDAStream s = c10::cuda::getCurrentCUDAStream(a->device);
  std::lock_guard<std::mutex> lock(a->mutex);
  bindBuffer(*a, "x", address(x));
  bindBuffer(*a, "grad", address(grad));
  bindBuffer(*a, "out", address(loss));
  bindBuffer(*a, "dx", address(dx));
  if (counter.has_value() && counter->defined())
    bindBuffer(*a, "step", address(*counter));
  setSeed(*a, seed);
  runPhase(*a, SIGREG_AOT_PHASE_ALL, s);
  return {loss, dx};
}

std::tuple<Tensor, Tensor> stepRunMeta(const Tensor &x, int64_t handle, int64_t,
                                       const std::optional<Tensor> &,
                                       const Tensor &) {
  std::shared_ptr<Artifact> a = lookup(handle, "sigreg::step_run");
  at::ScalarType dx = spec(*a, "dx", "sigreg::step_run").dtype;
  return {at::empty({}, x.options().dtype(at::kFloat)),
          at::empty_symint(x.sym_sizes(), x.options().dtype(dx))};
}

const c10::TypedOperatorHandle<
    std::tuple<Tensor, Tensor>(const Tensor &, int64_t, int64_t,
                               const std::optional<Tensor> &, const Tensor &)> &
stepRunOp() {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("sigreg::step_run", "")
                       .typed<std::tuple<Tensor, Tensor>(
                           const Tensor &, int64_t, int64_t,
                           const std::optional<Tensor> &, const Tensor &)>();
  return op;
}

/// torch.autograd.function.once_differentiable's wrapper: where the backward
/// records a graph (create_graph=True), dL/dx comes back through a node that
/// raises on a second order, with Python's message.
Tensor onceDifferentiable(const Tensor &t, const Tensor &g) {
  if (!at::GradMode::is_enabled() || !g.requires_grad() || !t.defined())
    return t;
  auto error = std::make_shared<torch::autograd::DelayedError>(
      "trying to differentiate twice a function that was marked with "
      "@once_differentiable",
      1);
  Tensor alias = t.detach();
  alias.set_requires_grad(true);
  return error->apply({alias})[0];
}

/// _StepCompiled in C++: the step at forward time, dL/dx kept; the backward
/// is g * dL/dx written in x's dtype (the multiply torch.mul(dx, g, out=...)
/// runs there, so the bits are the same).
struct StepFunction : public torch::autograd::Function<StepFunction> {
  static Tensor forward(AutogradContext *ctx, const Tensor &x, int64_t handle,
                        int64_t seed, const std::optional<Tensor> &counter,
                        const Tensor &grad) {
    at::AutoDispatchBelowADInplaceOrView guard;
    auto [loss, dx] = stepRunOp().call(x, handle, seed, counter, grad);
    ctx->save_for_backward({dx});
    ctx->saved_data["dtype"] = x.scalar_type();
    return loss;
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    Tensor dx = ctx->get_saved_variables()[0];
    variable_list result(5);
    if (!ctx->needs_input_grad(0))
      return result;
    const Tensor &g = grads[0];
    Tensor out;
    {
      at::NoGradGuard noGrad;
      out = at::empty(dx.sizes(), dx.options().dtype(
                                      ctx->saved_data["dtype"].toScalarType()));
      at::mul_out(out, dx, g);
    }
    result[0] = onceDifferentiable(out, g);
    return result;
  }
};

Tensor stepAutograd(const Tensor &x, int64_t handle, int64_t seed,
                    const std::optional<Tensor> &counter, const Tensor &grad) {
  return StepFunction::apply(x, handle, seed, counter, grad);
}

/// Without autograd (inference mode, or below the Autograd key): the loss.
Tensor stepPlain(const Tensor &x, int64_t handle, int64_t seed,
                 const std::optional<Tensor> &counter, const Tensor &grad) {
  return std::get<0>(stepRunOp().call(x, handle, seed, counter, grad));
}

//===----------------------------------------------------------------------===//
// phase_forward / phase_backward / step_phased: the phased step
// (_StepPhased)
//===----------------------------------------------------------------------===//

int64_t dxBufferBytes(const Artifact &a, int64_t dxBytes) {
  return a.shared.empty() ? 0
                          : std::max(dxBytes, a.sharedOffset + a.sharedBytes);
}

/// The forward phase: the loss, and what the backward phase reads, in this
/// call's tensors: the pack of workspaces and, where a workspace shares
/// dL/dx's allocation, that allocation (else empty), whose start becomes
/// dL/dx.
std::tuple<Tensor, Tensor, Tensor>
phaseForward(const Tensor &x, int64_t handle, int64_t seed,
             const std::optional<Tensor> &counter) {
  constexpr const char *op = "sigreg::phase_forward";
  std::shared_ptr<Artifact> a = lookup(handle, op);
  TORCH_CHECK_VALUE(a->phased, op, ": the artifact has no backward phase");
  checkTensor(x, spec(*a, "x", op), a->device, op);
  checkCounter(*a, counter, op);
  const BufferSpec &dxs = spec(*a, "dx", op);
  Tensor loss = at::empty({}, x.options().dtype(at::kFloat));
  checkTensor(loss, spec(*a, "out", op), a->device, op);
  c10::cuda::CUDAStream s = c10::cuda::getCurrentCUDAStream(a->device);
  at::TensorOptions bytes = x.options().dtype(at::kByte);
  std::lock_guard<std::mutex> lock(a->mutex);
  Tensor pack = std::exchange(a->spare, Tensor());
  if (pack.defined() && (a->spareStream != s.id() || capturing(s)))
    pack = Tensor();
  if (!pack.defined())
    pack = at::empty({a->packBytes}, bytes);
  Tensor dxBuffer;
  if (!a->shared.empty()) {
    dxBuffer = at::empty({dxBufferBytes(*a, dxs.bytes)}, bytes);
  } else {
    if (!a->noDxBuffer.defined())
      a->noDxBuffer = at::empty({0}, bytes);
    dxBuffer = a->noDxBuffer;
  }
  bindBuffer(*a, "x", address(x));
  bindBuffer(*a, "out", address(loss));
  for (const Workspace &w : a->workspaces)
    bindBuffer(*a, w.name, address(pack) + w.offset);
  if (!a->shared.empty())
    bindBuffer(*a, a->shared, address(dxBuffer) + a->sharedOffset);
  if (counter.has_value() && counter->defined())
    bindBuffer(*a, "step", address(*counter));
  setSeed(*a, seed);
  runPhase(*a, SIGREG_AOT_PHASE_FORWARD, s);
  return {loss, pack, dxBuffer};
}

std::tuple<Tensor, Tensor, Tensor>
phaseForwardMeta(const Tensor &x, int64_t handle, int64_t,
                 const std::optional<Tensor> &) {
  constexpr const char *op = "sigreg::phase_forward";
  std::shared_ptr<Artifact> a = lookup(handle, op);
  TORCH_CHECK_VALUE(a->phased, op, ": the artifact has no backward phase");
  at::TensorOptions bytes = x.options().dtype(at::kByte);
  return {at::empty({}, x.options().dtype(at::kFloat)),
          at::empty({a->packBytes}, bytes),
          at::empty({dxBufferBytes(*a, spec(*a, "dx", op).bytes)}, bytes)};
}

/// The backward phase with the cotangent `grad`: dL/dx in `dtype` of
/// `xShape`, the start of `dxBuffer` where a workspace shares it.
Tensor phaseBackward(const Tensor &grad, const Tensor &workspaces,
                     const Tensor &dxBuffer, int64_t handle,
                     at::IntArrayRef xShape, at::ScalarType dtype) {
  constexpr const char *op = "sigreg::phase_backward";
  std::shared_ptr<Artifact> a = lookup(handle, op);
  TORCH_CHECK_VALUE(a->phased, op, ": the artifact has no backward phase");
  Tensor g = grad.to(at::kFloat).contiguous();
  checkTensor(g, spec(*a, "grad", op), a->device, op);
  checkBytes(workspaces, "workspaces", a->packBytes, a->device, op);
  const BufferSpec &dxs = spec(*a, "dx", op);
  Tensor dx;
  if (a->shared.empty()) {
    dx = at::empty(xShape, g.options().dtype(dtype));
  } else {
    checkBytes(dxBuffer, "dx_buffer", dxBufferBytes(*a, dxs.bytes), a->device,
               op);
    int64_t n = 1;
    for (int64_t d : xShape)
      n *= d;
    TORCH_CHECK_VALUE(n * static_cast<int64_t>(c10::elementSize(dtype)) <=
                          dxBuffer.numel(),
                      op, ": x_shape ", xShape, " does not fit dx_buffer");
    dx = dxBuffer.narrow(0, 0, n * c10::elementSize(dtype))
             .view(dtype)
             .view(xShape);
  }
  checkTensor(dx, dxs, a->device, op);
  c10::cuda::CUDAStream s = c10::cuda::getCurrentCUDAStream(a->device);
  bool capture = capturing(s);
  std::lock_guard<std::mutex> lock(a->mutex);
  bindBuffer(*a, "grad", address(g));
  bindBuffer(*a, "dx", address(dx));
  for (const Workspace &w : a->workspaces)
    bindBuffer(*a, w.name, address(workspaces) + w.offset);
  if (!a->shared.empty())
    bindBuffer(*a, a->shared, address(dxBuffer) + a->sharedOffset);
  runPhase(*a, SIGREG_AOT_PHASE_BACKWARD, s);
  if (!capture) {
    // dL/dx's own buffer goes to the caller, not to the next forward.
    a->spare = workspaces;
    a->spareStream = s.id();
  }
  return dx;
}

Tensor phaseBackwardMeta(const Tensor &grad, const Tensor &, const Tensor &,
                         int64_t, at::IntArrayRef xShape,
                         at::ScalarType dtype) {
  return at::empty(xShape, grad.options().dtype(dtype));
}

const c10::TypedOperatorHandle<std::tuple<Tensor, Tensor, Tensor>(
    const Tensor &, int64_t, int64_t, const std::optional<Tensor> &)> &
phaseForwardOp() {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("sigreg::phase_forward", "")
                       .typed<std::tuple<Tensor, Tensor, Tensor>(
                           const Tensor &, int64_t, int64_t,
                           const std::optional<Tensor> &)>();
  return op;
}

const c10::TypedOperatorHandle<Tensor(const Tensor &, const Tensor &,
                                      const Tensor &, int64_t, at::IntArrayRef,
                                      at::ScalarType)> &
phaseBackwardOp() {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("sigreg::phase_backward", "")
          .typed<Tensor(const Tensor &, const Tensor &, const Tensor &, int64_t,
                        at::IntArrayRef, at::ScalarType)>();
  return op;
}

// The phases and the unphased step's forward are not differentiable by
// themselves (step and step_phased are): no autograd node, below autograd.
std::tuple<Tensor, Tensor> stepRunAutograd(const Tensor &x, int64_t handle,
                                           int64_t seed,
                                           const std::optional<Tensor> &counter,
                                           const Tensor &grad) {
  at::AutoDispatchBelowADInplaceOrView guard;
  return stepRunOp().call(x, handle, seed, counter, grad);
}

std::tuple<Tensor, Tensor, Tensor>
phaseForwardAutograd(const Tensor &x, int64_t handle, int64_t seed,
                     const std::optional<Tensor> &counter) {
  at::AutoDispatchBelowADInplaceOrView guard;
  return phaseForwardOp().call(x, handle, seed, counter);
}

Tensor phaseBackwardAutograd(const Tensor &grad, const Tensor &workspaces,
                             const Tensor &dxBuffer, int64_t handle,
                             at::IntArrayRef xShape, at::ScalarType dtype) {
  at::AutoDispatchBelowADInplaceOrView guard;
  return phaseBackwardOp().call(grad, workspaces, dxBuffer, handle, xShape,
                                dtype);
}

/// Keeps an artifact alive in an autograd node's saved data (as ctx.step_fn
/// keeps its CapiFunction in _StepPhased).
struct ArtifactRef : torch::CustomClassHolder {
  explicit ArtifactRef(std::shared_ptr<Artifact> a) : artifact(std::move(a)) {}
  std::shared_ptr<Artifact> artifact;
};

/// _StepPhased in C++: the forward phase at forward time, the backward
/// phase with the cotangent as given at backward time; nothing else runs.
struct StepPhasedFunction
    : public torch::autograd::Function<StepPhasedFunction> {
  static Tensor forward(AutogradContext *ctx, const Tensor &x, int64_t handle,
                        int64_t seed, const std::optional<Tensor> &counter) {
    at::AutoDispatchBelowADInplaceOrView guard;
    auto [loss, pack, dxBuffer] =
        phaseForwardOp().call(x, handle, seed, counter);
    auto &saved = ctx->saved_data;
    saved["workspaces"] = pack;
    saved["dx_buffer"] = dxBuffer;
    saved["handle"] = handle;
    saved["x_shape"] = x.sizes().vec();
    saved["dtype"] = x.scalar_type();
    saved["artifact"] =
        c10::IValue::make_capsule(c10::make_intrusive<ArtifactRef>(
            lookup(handle, "sigreg::step_phased")));
    return loss;
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    auto &saved = ctx->saved_data;
    // What the backward phase reads is this call's; a second backward
    // (retain_graph) finds it gone.
    auto it = saved.find("workspaces");
    Tensor pack, dxBuffer;
    if (it != saved.end()) {
      pack = it->second.toTensor();
      dxBuffer = saved["dx_buffer"].toTensor();
      saved.erase(it);
      saved.erase("dx_buffer");
    }
    variable_list result(4);
    if (!ctx->needs_input_grad(0))
      return result;
    TORCH_CHECK(pack.defined(),
                "sigreg: the compiled step's backward ran twice "
                "(retain_graph); its saved buffers are gone");
    const Tensor &g = grads[0];
    Tensor dx;
    {
      at::NoGradGuard noGrad;
      at::AutoDispatchBelowADInplaceOrView guard;
      std::vector<int64_t> shape = saved["x_shape"].toIntVector();
      dx = phaseBackwardOp().call(g, pack, dxBuffer, saved["handle"].toInt(),
                                  shape, saved["dtype"].toScalarType());
    }
    result[0] = onceDifferentiable(dx, g);
    return result;
  }
};

Tensor stepPhasedAutograd(const Tensor &x, int64_t handle, int64_t seed,
                          const std::optional<Tensor> &counter) {
  return StepPhasedFunction::apply(x, handle, seed, counter);
}

Tensor stepPhasedPlain(const Tensor &x, int64_t handle, int64_t seed,
                       const std::optional<Tensor> &counter) {
  return std::get<0>(phaseForwardOp().call(x, handle, seed, counter));
}

} // namespace

// The schemas (docs/TORCH.md, "The ops path"). `handle` is the sigreg_aot*
// of a registered artifact; the counter (LeJEPA's global_step on the GPU)
// is read and advanced by the kernels, hence (a!). call's out_shape
// defaults to the registered one: an int[] argument costs about a quarter of
// a microsecond of parsing per call from Python.
TORCH_LIBRARY(sigreg, m) {
  m.def("register_artifact(int handle, int device, bool owned, bool seeded, "
        "bool phased, str[] buffers, str[] roles, str[] dtypes, int[] bytes, "
        "int[] out_shape, str[] workspaces, int[] workspace_bytes, str shares, "
        "int shares_offset) -> ()",
        &registerArtifact);
  m.def("release_artifact(int handle) -> ()", &releaseArtifact);
  m.def("runtime_call_address() -> int", &runtimeCallAddress);
  m.def("call(Tensor x, int handle, int seed, Tensor(a!)? aux=None, "
        "int[]? out_shape=None) -> Tensor");
  m.def("step_run(Tensor x, int handle, int seed, Tensor(a!)? counter, "
        "Tensor grad) -> (Tensor, Tensor)");
  m.def("step(Tensor x, int handle, int seed, Tensor(a!)? counter, "
        "Tensor grad) -> Tensor");
  m.def("phase_forward(Tensor x, int handle, int seed, Tensor(a!)? counter) "
        "-> (Tensor, Tensor, Tensor)");
  m.def("phase_backward(Tensor grad, Tensor(a!) workspaces, "
        "Tensor(b!) dx_buffer, int handle, int[] x_shape, ScalarType dtype) "
        "-> Tensor");
  m.def("step_phased(Tensor x, int handle, int seed, Tensor(a!)? counter) "
        "-> Tensor");
}

// The kernels that run artifacts, for CUDA tensors and for CPU ones too, to
// refuse those with a message rather than the dispatcher's "no kernel for
// CPU".
static void implRunners(torch::Library &m) {
  m.impl("call", &call);
  m.impl("step_run", &stepRun);
  m.impl("phase_forward", &phaseForward);
  m.impl("phase_backward", &phaseBackward);
}

TORCH_LIBRARY_IMPL(sigreg, CUDA, m) { implRunners(m); }

TORCH_LIBRARY_IMPL(sigreg, CPU, m) { implRunners(m); }

// Meta kernels: what FakeTensor and torch.compile trace with.
TORCH_LIBRARY_IMPL(sigreg, Meta, m) {
  m.impl("call", &callMeta);
  m.impl("step_run", &stepRunMeta);
  m.impl("phase_forward", &phaseForwardMeta);
  m.impl("phase_backward", &phaseBackwardMeta);
}

// The training steps: a C++ autograd node where autograd records, the
// forward alone elsewhere (both through the ops above, so that tracing sees
// them); the other ops pass autograd by.
TORCH_LIBRARY_IMPL(sigreg, Autograd, m) {
  m.impl("call", &callAutograd);
  m.impl("step_run", &stepRunAutograd);
  m.impl("phase_forward", &phaseForwardAutograd);
  m.impl("phase_backward", &phaseBackwardAutograd);
  m.impl("step", &stepAutograd);
  m.impl("step_phased", &stepPhasedAutograd);
}

TORCH_LIBRARY_IMPL(sigreg, CompositeExplicitAutograd, m) {
  m.impl("step", &stepPlain);
  m.impl("step_phased", &stepPhasedPlain);
}
