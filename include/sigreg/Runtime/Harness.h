//===- Harness.h - Inputs, validation and benchmarking ----------*- C++ -*-===//
//
// What every runner of compiled SIGReg code needs around an Executor
// (sigreg-aot-run, sigreg-run): seeded inputs, the float64 reference,
// validation of the downloaded output (docs/CONTRACT.md section 5) and the
// region table (docs/CONTRACT.md section 7) with CUDA-event timings
// (docs/CONTRACT.md section 6).
//
// Conventions the artifact must follow (checked by checkProblemBuffers):
//   input  "x"    [V,N,D] (views) or [N,D], problem.dtype
//   input  "proj" [D,S], problem.dtype (projection "explicit" only)
//   output "out" (or the only output buffer): f32, 1 element for mean/sum,
//          [S] or [V,S] for reduction none; dL/dx (x's shape) for a gradient
//   input  "grad" (gradient and step problems): the loss's cotangent, f32
//   output "dx" (step problems): dL/dx, f32, x's shape
//   scalar "seed" (i32/i64): the projection seed; scalars "V","N","D","S",
//          "P" (integers) receive the problem's sizes.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_RUNTIME_HARNESS_H
#define SIGREG_RUNTIME_HARNESS_H

#include "sigreg/Runtime/Executor.h"
#include "sigreg/Runtime/Manifest.h"
#include "sigreg/Runtime/Status.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace sigreg {
namespace runtime {

/// Host-side inputs for one problem, and what the reference sees.
struct ProblemInputs {
  ProblemDesc problem;
  uint64_t projectionSeed = 0;
  uint64_t inputSeed = 0;
  std::vector<uint8_t> x;    // device bytes of x in problem.dtype
  std::vector<double> x64;   // the dtype-rounded x values
  std::vector<uint8_t> proj; // explicit projection only: [D,S] device bytes
  std::vector<double> A64;   // projection the reference uses, [D,S]
};

/// x ~ N(0,1) from `inputSeed`, rounded to problem.dtype. For "explicit"
/// projection, proj = generateProjection(projectionSeed) rounded to dtype; for
/// "seed", A64 = referenceProjection(projectionSeed).
Status generateInputs(const ProblemDesc &problem, uint64_t projectionSeed,
                      uint64_t inputSeed, ProblemInputs &out);

/// The float64 reference (referenceLoss): 1 value for mean/sum, V*S for none.
/// `unclipped` (optional) receives the V*S per-slice statistics before
/// clipping, which validateOutput uses to detect vacuous checks and to
/// accept either side of a clip threshold a statistic is within rounding of;
/// for a gradient problem, the slices' clip-flip norms instead
/// (referenceGradient's flipNorms), which validateGradient turns into slack.
Status computeReference(const ProblemInputs &inputs, std::vector<double> &ref,
                        std::vector<double> *unclipped = nullptr);
/// The loss cotangent the runners give a training step (every element of its
/// "grad"): not 1, so that a step that drops or misplaces it fails (dL/dx is
/// linear in it; 0.75 is exact). Gradient problems take all ones.
inline constexpr float kStepCotangent = 0.75f;
/// The "grad" a runner gives a gradient or step problem: V*S values for
/// reduction none, else one; 1, or kStepCotangent for a step.
std::vector<float> runnerCotangent(const ProblemDesc &p);
/// 16-bit words of `dtype` ("bf16" or "f16") widened to f32 (exact; a NaN
/// poison word widens to the f32 poison).
std::vector<float> widenSixteenBit(std::string_view dtype,
                                   const std::vector<uint16_t> &words);
/// The float64 dL/dx of a gradient problem (referenceGradient, all-ones
/// cotangent) or of a step (times kStepCotangent), V*N*D values; `flipNorms`
/// as computeReference's side data (scaled alike).
Status computeGradientReference(const ProblemInputs &inputs,
                                std::vector<double> &grad,
                                std::vector<double> *flipNorms = nullptr);
/// The problem a step's "dx" output is validated and printed as: the same
/// problem with `gradient` set.
ProblemDesc stepGradientProblem(const ProblemDesc &step);

/// Checks that the manifest has a problem and buffers/scalars matching the
/// conventions above.
Status checkProblemBuffers(const Manifest &manifest);
/// Name of the loss output buffer ("out", or the only output).
std::string outputBufferName(const Manifest &manifest);
/// The buffers of the C ABI's one-call form (sigreg_aot_call): manifest
/// indices of the input "x", of the one other input (proj, step or grad; -1
/// where there is none) and of the one output, and whether the manifest
/// declares the "seed" scalar.
struct CallPlan {
  int x = -1, aux = -1, out = -1;
  bool seeded = false;
};
/// The CallPlan of `manifest`, or an error saying why the one-call form
/// does not apply: no input "x", more than one other input (the DDP
/// backward entry point), other than one output (a training step, the DDP
/// forward entry point), or a scalar other than "seed".
Status planCall(const Manifest &manifest, CallPlan &plan);
/// Number of f32 elements of the loss output.
int64_t outputElementCount(const ProblemDesc &problem);

/// Uploads x (and proj) and sets the scalars.
Status bindProblem(Executor &exec, const ProblemInputs &inputs);

/// Tolerance on the relative error (docs/CONTRACT.md section 5): 1e-4 for f32
/// inputs, 2e-3 for bf16/f16.
double toleranceForDtype(const std::string &dtype);
/// Gradient tolerance (relative L2 error of dL/dx, docs/CONTRACT.md section
/// 4): 1e-3 for f32, 1e-2 for bf16/f16.
double gradientToleranceForDtype(const std::string &dtype);

struct ValidationResult {
  bool passed = false;
  int64_t count = 0;     // output elements
  int64_t unwritten = 0; // elements still holding the poison pattern
  int64_t nonFinite = 0; // NaN/Inf elements (unwritten ones included)
  /// mean/sum: the loss and its reference. none: the mean of the outputs
  /// and of the reference.
  double loss = 0.0;
  double reference = 0.0;
  /// mean/sum: |loss - ref| / |ref|, less the largest change clip-threshold
  /// flips can make (below). none: the maximum over slices of
  /// |out_i - ref_i| / max(|ref_i|, kSliceErrorFloor * mean_j |ref_j|), each
  /// slice relative to itself; the floor only guards statistics near 0.
  /// A slice whose unclipped statistic is within the tolerance of the clip
  /// threshold may round to either side: it passes if it matches either.
  double relError = 0.0;
  /// Slices within rounding of the clip threshold (unclipped given).
  int64_t ambiguous = 0;
  /// Every slice is clipped (or the reference is exactly 0): the comparison
  /// tests nothing about the statistic, and validation fails.
  bool vacuous = false;
  double l2RelError = 0.0; // ||out - ref|| / ||ref||
  double tolerance = 0.0;
  std::string message; // one line: "PASS ..." or "FAIL: why"
};

/// Floor of the per-slice relative error's denominator, as a fraction of
/// the mean |reference| statistic.
constexpr double kSliceErrorFloor = 0.1;

/// Compares downloaded outputs with the reference. NaN never passes.
/// `unclipped`: the reference's per-slice statistics before clipping
/// (computeReference); without it, clip thresholds are not special-cased and
/// only an all-zero reference counts as vacuous.
/// dL/dx against the float64 reference gradient: relative L2 error, NaN/Inf
/// and unwritten values fail, an all-zero reference (everything clipped) is
/// vacuous and fails. `loss` and `reference` of the result hold the norms.
/// `flipNorms` (computeReference's side data): the L2 error is reduced by the
/// sum of the norms of the slices within rounding of the clip threshold
/// (each may be gated either way) before it is compared (relError;
/// l2RelError keeps the plain error).
ValidationResult
validateGradient(const ProblemDesc &problem, const std::vector<float> &out,
                 const std::vector<double> &ref,
                 const std::vector<double> *flipNorms = nullptr);
/// validateGradient when `problem.gradient`.
ValidationResult validateOutput(const ProblemDesc &problem,
                                const std::vector<float> &out,
                                const std::vector<double> &ref,
                                const std::vector<double> *unclipped = nullptr);

/// Poisons the outputs, runs the step list once (or replays `graph` when
/// given), downloads and validates. `outputs` (optional) receives the values.
Status runAndValidate(Executor &exec, const std::vector<double> &ref,
                      ValidationResult &result,
                      const CudaGraph *graph = nullptr,
                      std::vector<float> *outputs = nullptr,
                      const std::vector<double> *unclipped = nullptr);

/// A step problem's "dx" output of the run that runAndValidate made (no new
/// run): downloads and validates it against `grad`
/// (computeGradientReference). `values` (optional) receives it.
Status validateStepGradient(Executor &exec, const std::vector<double> &grad,
                            const std::vector<double> *flipNorms,
                            ValidationResult &result,
                            std::vector<float> *values = nullptr);

/// A step fails when its loss or its dL/dx does: folds the gradient's
/// verdict into the loss's result (its message names the gradient's failure).
void mergeStepValidation(ValidationResult &loss,
                         const ValidationResult &gradient);

/// Prints loss/reference/error lines and the verdict.
void printValidation(const ValidationResult &result, const ProblemDesc &problem,
                     FILE *out);

struct BenchOptions {
  int warmup = 20;
  int iters = 200;
  /// Overwrite an L2-sized scratch buffer before every timed run (outside
  /// the timed events), as triton's do_bench does for the PyTorch and
  /// Triton timings of BENCHMARKS.md. It also keeps the device queue ahead of
  /// the host so tiny kernels are not timed with host launch gaps.
  bool flushL2 = true;
  /// Rotate among up to this many copies of the inputs when they fit in L2.
  int maxInputCopies = 64;
  bool graph = true; // also time CUDA graph replays
  /// >= 0: every kernel's preferred shared-memory carveout in percent
  /// (Executor::setSharedCarveout) before timing; -1 leaves the driver's.
  int sharedCarveout = -1;
};

struct BenchRow {
  std::string name;
  double ms = 0.0;
  double sharePct = 0.0; // of the sum of the region rows; < 0: not shown
};

struct BenchResult {
  /// The four seed regions first (0 when absent), then any other region of
  /// the artifact; each the median over iters of its per-run sum.
  std::vector<BenchRow> regions;
  double fullForwardMs = 0.0;      // median, events around the step list
  double fullForwardGraphMs = 0.0; // median of graph replays (< 0: skipped)
  int warmup = 0;
  int iters = 0;
  int inputCopies = 1;
  uint64_t inputBytes = 0;
  bool flushL2 = false;
  uint64_t flushBytes = 0;
};

/// Times the artifact (inputs must be bound with bindProblem first).
/// Extra input copies are made from the currently bound inputs and freed
/// afterwards; the executor's own buffers are rebound on return.
Status runBenchmark(Executor &exec, const BenchOptions &options,
                    BenchResult &result);

/// "region time_ms share_%" table.
void printBenchTable(const BenchResult &result, FILE *out);

/// JSON report of one run: artifact metadata, device, problem, validation
/// (when given) and benchmark (when given).
std::string reportJson(const Executor &exec, const std::string &artifact,
                       const ProblemInputs &inputs,
                       const ValidationResult *validation,
                       const BenchResult *bench);

/// Writes `text` to `path`.
Status writeTextFile(const std::string &path, const std::string &text);

} // namespace runtime
} // namespace sigreg

#endif // SIGREG_RUNTIME_HARNESS_H
