//===- Manifest.h - AOT artifact manifest (sigreg-aot-v1) -------*- C++ -*-===//
//
// An AOT artifact is a directory holding `manifest.json` and a PTX file. The
// manifest lists the problem the artifact computes, the device buffers, the
// runtime scalars and the ordered steps (memsets, copies, kernel launches)
// that compute the loss. The format is documented in full at the top of
// lib/Runtime/Manifest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_RUNTIME_MANIFEST_H
#define SIGREG_RUNTIME_MANIFEST_H

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sigreg {
namespace runtime {

/// The `problem` object: what the artifact computes (docs/CONTRACT.md
/// section 1).
struct ProblemDesc {
  int64_t V = 1;
  int64_t N = 0;
  int64_t D = 0;
  int64_t S = 0;
  int64_t P = 17;
  double tMax = 3.0;
  std::string clip = "none"; // none | zero_below | clamp_min
  double clipValue = 0.0;
  std::string reduction = "mean";  // mean | sum | none
  std::string dtype = "bf16";      // bf16 | f16 | f32
  std::string projection = "seed"; // seed | explicit
  bool views = false; // true: x is [V,N,D]; false: x is [N,D] (V must be 1)
  /// The entry computes dL/dx (sigreg.loss_grad, all-ones upstream gradient)
  /// instead of the loss: input "grad", output "out" of x's shape.
  bool gradient = false;
  /// A training step: the entry returns the loss and dL/dx together
  /// (sigreg.loss and sigreg.loss_grad of the same operands and knobs in one
  /// function, so that they share one forward): input "grad" (the loss's
  /// cotangent), outputs "out" (the loss) and "dx" (x's shape, in dxDtype).
  bool step = false;
  /// A step's dx: "f32", or the input's dtype (dL/dx rounded to it).
  std::string dxDtype = "f32";
  /// The DDP split's entry points (docs/TORCH.md), empty for the loss and
  /// its gradient: "ecf" computes the local ECF means (x, seed | proj) ->
  /// (cos, sin) [V, S, P]; "ecf_backward" computes dL/dx from their
  /// cotangents (x, seed | proj, dcos, dsin) -> out [V, N, D]. Both are
  /// compiled for the PyTorch module; the runners do not validate them.
  std::string entryPoint;
};

enum class BufferRole { Input, Output, Workspace };

struct BufferDesc {
  std::string name;
  BufferRole role = BufferRole::Workspace;
  uint64_t bytes = 0;
  std::string dtype;          // optional ("" when absent)
  std::vector<int64_t> shape; // optional
  bool hasShape = false;
  /// Workspace zeroed once when the runtime allocates it (not per run).
  bool zeroInit = false;
  /// Workspace that may live `sharesOffset` bytes into the output
  /// `sharesWith`, one allocation of max(its bytes, sharesOffset + bytes)
  /// (the manifest's "shares"; "" when absent). The steps are correct
  /// whether or not it does.
  std::string sharesWith;
  uint64_t sharesOffset = 0;
  /// Kept in L2's persisting portion while the steps that take it run (an
  /// access policy window on their launches; the manifest's "l2_persist").
  bool l2Persist = false;
  /// The alignment in bytes a bound address must have (the manifest's
  /// "align", a power of two up to 256; default 1): the runtime refuses a
  /// binding off it instead of letting a kernel fault.
  uint64_t align = 1;
};

enum class ScalarType { I32, I64, F32, F64 };

struct ScalarDesc {
  std::string name;
  ScalarType type = ScalarType::I64;
};

/// Tensor-map (TMA descriptor) enums, in the order of cuda.h's
/// CUtensorMapSwizzle / L2promotion / FloatOOBfill / Interleave (the runtime
/// passes the enumerator's position to cuTensorMapEncodeTiled).
enum class TensorMapSwizzle { None, B32, B64, B128 };
enum class TensorMapL2Promotion { None, B64, B128, B256 };
enum class TensorMapOobFill { Zero, Nan };
enum class TensorMapInterleave { None, B16, B32 };

/// Largest tensor rank cuTensorMapEncodeTiled accepts.
inline constexpr int kTensorMapMaxRank = 5;
/// Size and alignment of a CUtensorMap.
inline constexpr int kTensorMapBytes = 128;
inline constexpr int kTensorMapAlign = 64;

/// A CUtensorMap passed by value (128 bytes): a tiled view of a buffer,
/// innermost dimension first as cuTensorMapEncodeTiled takes it.
struct TensorMapDesc {
  std::string dtype;             // bf16 | f16 | f32 | i32
  std::vector<uint64_t> dims;    // elements, innermost first (rank entries)
  std::vector<uint64_t> strides; // bytes of dims 1..rank-1 (rank-1 entries)
  std::vector<uint32_t> box;     // elements, innermost first (rank entries)
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
  TensorMapL2Promotion l2Promotion = TensorMapL2Promotion::None;
  TensorMapOobFill oobFill = TensorMapOobFill::Zero;
  TensorMapInterleave interleave = TensorMapInterleave::None;
};

/// One kernel argument.
struct KernelArg {
  enum class Kind { Buffer, Scalar, I32, I64, F32, F64, TensorMap };
  Kind kind = Kind::I32;
  std::string name;        // Buffer / Scalar / TensorMap: the referenced name
  uint64_t offset = 0;     // Buffer / TensorMap: byte offset into the buffer
  int64_t intValue = 0;    // I32 / I64 literal
  double floatValue = 0.0; // F32 / F64 literal
  TensorMapDesc tensorMap; // TensorMap
};

enum class StepOp { Memset32, Memset8, Copy, Launch };

struct Step {
  StepOp op = StepOp::Launch;
  /// Region the step's time is counted under (default "other").
  std::string region;
  // memset32 / memset8: buffer, offset (bytes), count (elements), value.
  std::string buffer;
  uint64_t offset = 0;
  uint64_t count = 0;
  uint32_t value = 0;
  // copy: src+srcOffset -> dst+dstOffset, bytes.
  std::string src, dst;
  uint64_t srcOffset = 0, dstOffset = 0, bytes = 0;
  // launch.
  std::string kernel;
  std::array<unsigned, 3> grid = {1, 1, 1};
  std::array<unsigned, 3> block = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// Launched with programmatic stream serialization (the kernel overlaps
  /// the previous launch's tail and waits for it with griddepcontrol.wait).
  bool programmatic = false;
  /// "cooperative": the kernel waits at a grid-wide barrier, so it is
  /// launched cooperatively (every CTA resident at once, or the launch
  /// fails: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
  bool cooperative = false;
  /// "phase": "backward": the step belongs to the backward phase (the
  /// manifest's last steps; they alone read the input "grad"), which
  /// Executor::run(Phase::Backward) runs apart from the forward phase.
  bool backward = false;
  std::vector<KernelArg> args;
};

struct Manifest {
  std::string format; // "sigreg-aot-v1"
  std::string function;
  std::string pipeline;
  std::string chip;
  std::string ptx; // PTX file name, relative to the artifact directory
  bool hasProblem = false;
  ProblemDesc problem;
  std::vector<BufferDesc> buffers;
  std::vector<ScalarDesc> scalars;
  std::vector<Step> steps;

  /// Index of the buffer/scalar named `name`, or -1.
  int findBuffer(std::string_view name) const;
  int findScalar(std::string_view name) const;
};

/// The only format version this reader accepts.
inline constexpr const char *kManifestFormat = "sigreg-aot-v1";

/// Parses and validates a manifest. On failure returns false and sets `err`
/// to a message naming the offending key path (e.g. "steps[2].grid[1]") or
/// the line:column of a JSON syntax error.
bool parseManifest(std::string_view json, Manifest &out, std::string &err);

/// Reads `<dir>/manifest.json` and the PTX file it names.
bool loadArtifact(const std::string &dir, Manifest &manifest, std::string &ptx,
                  std::string &err);

/// Reads a whole file into `out`.
bool readFile(const std::string &path, std::string &out, std::string &err);

/// `s` as a JSON string literal (quotes, backslashes and control characters
/// escaped; control characters as \u00XX).
std::string jsonString(const std::string &s);
/// `v` as a JSON number with `significantDigits` digits (%g), or null when
/// it is not finite.
std::string jsonNumber(double v, int significantDigits);

/// Element size in bytes of a buffer dtype ("bf16", "f16", "f32", "i32", ...;
/// 0 for anything else).
int dtypeBytes(std::string_view dtype);

const char *toString(BufferRole role);
const char *toString(ScalarType type);
const char *toString(StepOp op);

} // namespace runtime
} // namespace sigreg

#endif // SIGREG_RUNTIME_MANIFEST_H
