//===- HarnessValidation.cpp - outputs against the reference --------------===//
//
// Part of the runtime harness (include/sigreg/Runtime/Harness.h), one file
// per job: inputs, validation, benchmarking, reports.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Runtime/Harness.h"

#include "sigreg/Reference/Inputs.h"
#include "sigreg/Reference/Limits.h"
#include "sigreg/Reference/Numeric.h"
#include "sigreg/Reference/Philox.h"
#include "sigreg/Reference/Reference.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace sigreg::runtime;

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

double sigreg::runtime::toleranceForDtype(const std::string &dtype) {
  return dtype == "f32" ? 1e-4 : 2e-3;
}

double sigreg::runtime::gradientToleranceForDtype(const std::string &dtype) {
  return dtype == "f32" ? 1e-3 : 1e-2;
}

namespace {
/// The checks every validation starts with: tolerance and count set, sizes
/// compared (false, with the message, on a mismatch), unwritten (poison) and
/// non-finite outputs counted.
bool startValidation(ValidationResult &r, double tolerance,
                     const std::vector<float> &out,
                     const std::vector<double> &ref) {
  r.tolerance = tolerance;
  r.count = static_cast<int64_t>(out.size());
  if (out.size() != ref.size() || out.empty()) {
    r.message = "FAIL: " + std::to_string(out.size()) + " outputs vs " +
                std::to_string(ref.size()) + " reference values";
    return false;
  }
  for (float v : out) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if (bits == kPoisonPattern)
      ++r.unwritten;
    if (!std::isfinite(v))
      ++r.nonFinite;
  }
  return true;
}
} // namespace

ValidationResult sigreg::runtime::validateGradient(
    const ProblemDesc &p, const std::vector<float> &out,
    const std::vector<double> &ref, const std::vector<double> *flipNorms) {
  ValidationResult r;
  if (!startValidation(r, gradientToleranceForDtype(p.dtype), out, ref))
    return r;
  double diff2 = 0, ref2 = 0, out2 = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    double d = out[i] - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    out2 += static_cast<double>(out[i]) * out[i];
  }
  r.loss = std::sqrt(out2);
  r.reference = std::sqrt(ref2);
  r.vacuous = ref2 == 0.0;
  r.l2RelError = std::sqrt(diff2) / std::max(r.reference, 1e-300);
  // A slice near the clip threshold may rightly be gated either way: allow
  // the largest change such flips can make.
  double slack = 0;
  if (flipNorms)
    for (double norm : *flipNorms)
      if (norm > 0) {
        ++r.ambiguous;
        slack += norm;
      }
  r.relError =
      std::max(0.0, std::sqrt(diff2) - slack) / std::max(r.reference, 1e-300);
  char buf[200];
  if (r.nonFinite || r.unwritten) {
    std::snprintf(buf, sizeof(buf),
                  "FAIL: %lld non-finite and %lld unwritten gradient values",
                  static_cast<long long>(r.nonFinite),
                  static_cast<long long>(r.unwritten));
  } else if (r.vacuous) {
    std::snprintf(buf, sizeof(buf),
                  "FAIL: the reference gradient is exactly 0 (every slice "
                  "clipped): the check would test nothing");
  } else {
    r.passed = r.relError <= r.tolerance;
    std::snprintf(buf, sizeof(buf),
                  "%s: gradient relative L2 error %.3e %s %.1e (%s inputs)",
                  r.passed ? "PASS" : "FAIL", r.relError, r.passed ? "<=" : ">",
                  r.tolerance, p.dtype.c_str());
  }
  r.message = buf;
  if (r.ambiguous) {
    std::snprintf(buf, sizeof(buf),
                  "; %" PRId64 " slice%s within rounding of the clip "
                  "threshold (either side accepted: L2 error %.3e before)",
                  r.ambiguous, r.ambiguous == 1 ? "" : "s", r.l2RelError);
    r.message += buf;
  }
  return r;
}

ValidationResult sigreg::runtime::validateOutput(
    const ProblemDesc &p, const std::vector<float> &out,
    const std::vector<double> &ref, const std::vector<double> *unclipped) {
  if (p.gradient)
    return validateGradient(p, out, ref, unclipped);
  ValidationResult r;
  if (!startValidation(r, toleranceForDtype(p.dtype), out, ref))
    return r;
  bool scalar = p.reduction != "none";
  bool clipped = p.clip != "none";
  size_t numStats = static_cast<size_t>(p.V * p.S);
  if (unclipped && unclipped->size() != numStats)
    unclipped = nullptr;
  double sumOut = 0, sumRef = 0, sumAbsRef = 0, diff2 = 0, ref2 = 0;
  bool allZero = true;
  for (size_t i = 0; i < out.size(); ++i) {
    sumOut += out[i];
    sumRef += ref[i];
    sumAbsRef += std::fabs(ref[i]);
    allZero &= ref[i] == 0.0;
    double d = out[i] - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
  }
  double n = static_cast<double>(out.size());
  r.loss = scalar ? out[0] : sumOut / n;
  r.reference = scalar ? ref[0] : sumRef / n;

  // What clipping makes of an unclipped statistic; whether it is within
  // rounding of the threshold (either side is then correct).
  double c = p.clipValue;
  double replacement = p.clip == "zero_below" ? 0.0 : c;
  auto nearThreshold = [&](double t) {
    return clipped && std::fabs(t - c) <= r.tolerance * std::fabs(t);
  };
  // Vacuous: every slice clipped, or (no unclipped statistics) a reference
  // of exact zeros.
  if (clipped && unclipped) {
    bool allClipped = true;
    for (double t : *unclipped)
      allClipped &= t < c && !nearThreshold(t);
    r.vacuous = allClipped;
  } else {
    r.vacuous = allZero;
  }

  double maxRel = 0;
  if (scalar) {
    // A slice near the threshold may legitimately flip: allow the largest
    // change that flips can make to the reduced loss.
    double slack = 0;
    if (unclipped)
      for (double t : *unclipped)
        if (nearThreshold(t)) {
          ++r.ambiguous;
          slack += std::fabs(t - replacement);
        }
    if (p.reduction == "mean")
      slack /= static_cast<double>(numStats);
    double e = std::max(0.0, std::fabs(out[0] - ref[0]) - slack);
    if (!std::isfinite(out[0]))
      e = std::numeric_limits<double>::quiet_NaN();
    double denom = std::fabs(ref[0]);
    maxRel = denom > 0 ? e / denom : e;
  } else {
    double floor = std::max(kSliceErrorFloor * sumAbsRef / n, 1e-300);
    for (size_t i = 0; i < out.size(); ++i) {
      auto relTo = [&](double want) {
        return std::fabs(out[i] - want) / std::max(std::fabs(want), floor);
      };
      double rel = relTo(ref[i]);
      if (unclipped && nearThreshold((*unclipped)[i])) {
        // Either side of the threshold: the statistic itself, or what
        // clipping replaces it with.
        ++r.ambiguous;
        double t = (*unclipped)[i];
        rel = std::min(relTo(t), relTo(replacement));
      }
      if (std::isnan(out[i]))
        rel = std::numeric_limits<double>::quiet_NaN();
      if (!(rel <= maxRel)) // NaN propagates
        maxRel = rel;
    }
  }
  r.relError = maxRel;
  r.l2RelError = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  char buf[320];
  if (r.unwritten) {
    std::snprintf(buf, sizeof(buf),
                  "FAIL: %" PRId64 " of %" PRId64
                  " output elements were never written (poison 0x%08X)",
                  r.unwritten, r.count, kPoisonPattern);
  } else if (r.nonFinite) {
    std::snprintf(buf, sizeof(buf),
                  "FAIL: %" PRId64 " of %" PRId64
                  " output elements are NaN/Inf",
                  r.nonFinite, r.count);
  } else if (r.vacuous) {
    std::snprintf(buf, sizeof(buf),
                  "FAIL: vacuous check: %s (choose inputs or a clip value "
                  "that leave some slices unclipped)",
                  clipped && unclipped ? "every slice's statistic is clipped"
                                       : "the reference is exactly 0");
  } else if (!(r.relError <= r.tolerance)) {
    std::snprintf(buf, sizeof(buf),
                  "FAIL: %s %.3e exceeds tolerance %.1e (%s inputs)",
                  scalar ? "relative error" : "max relative error", r.relError,
                  r.tolerance, p.dtype.c_str());
  } else {
    r.passed = true;
    std::snprintf(buf, sizeof(buf), "PASS: %s %.3e <= %.1e (%s inputs)",
                  scalar ? "relative error" : "max relative error", r.relError,
                  r.tolerance, p.dtype.c_str());
  }
  r.message = buf;
  if (r.ambiguous) {
    std::snprintf(buf, sizeof(buf),
                  "; %" PRId64 " slice%s within rounding of the clip "
                  "threshold (either side accepted)",
                  r.ambiguous, r.ambiguous == 1 ? "" : "s");
    r.message += buf;
  }
  return r;
}

Status sigreg::runtime::runAndValidate(Executor &exec,
                                       const std::vector<double> &ref,
                                       ValidationResult &result,
                                       const CudaGraph *graph,
                                       std::vector<float> *outputs,
                                       const std::vector<double> *unclipped) {
  const Manifest &m = exec.manifest();
  std::string outName = outputBufferName(m);
  if (outName.empty())
    return Status::error("manifest has no single output buffer");
  std::vector<float> out(static_cast<size_t>(outputElementCount(m.problem)));
  SIGREG_RETURN_IF_ERROR(exec.poisonOutputs());
  // A device step: the run reads its seed from the counter and must leave
  // it advanced by one; the counter is then put back, so that every
  // validation run (and graph replay) takes the same seed.
  bool deviceStep = m.problem.projection == "step";
  int64_t before = 0, after = 0;
  if (deviceStep)
    SIGREG_RETURN_IF_ERROR(exec.download("step", &before, sizeof(before)));
  if (graph)
    SIGREG_RETURN_IF_ERROR(graph->launch(exec.stream()));
  else
    SIGREG_RETURN_IF_ERROR(exec.run());
  SIGREG_RETURN_IF_ERROR(
      exec.synchronize().withContext("running the step list"));
  if (deviceStep) {
    SIGREG_RETURN_IF_ERROR(exec.download("step", &after, sizeof(after)));
    if (after != before + 1)
      return Status::error("the step counter holds " + std::to_string(after) +
                           " after the run; it should have advanced from " +
                           std::to_string(before) + " to " +
                           std::to_string(before + 1));
    SIGREG_RETURN_IF_ERROR(exec.upload("step", &before, sizeof(before)));
  }
  SIGREG_RETURN_IF_ERROR(exec.download(outName, out.data(), out.size() * 4));
  result = validateOutput(m.problem, out, ref, unclipped);
  if (outputs)
    *outputs = std::move(out);
  return Status::success();
}

Status sigreg::runtime::validateStepGradient(
    Executor &exec, const std::vector<double> &grad,
    const std::vector<double> *flipNorms, ValidationResult &result,
    std::vector<float> *values) {
  const Manifest &m = exec.manifest();
  if (!m.problem.step)
    return Status::error("validateStepGradient: not a step manifest");
  std::vector<float> dx(
      static_cast<size_t>(m.problem.V * m.problem.N * m.problem.D));
  if (m.problem.dxDtype == "f32") {
    SIGREG_RETURN_IF_ERROR(exec.download("dx", dx.data(), dx.size() * 4));
  } else {
    // dL/dx rounded to the input's 16-bit type: widened exactly (the NaN
    // poison's upper half widens to the f32 poison, so unwritten elements
    // are still counted).
    std::vector<uint16_t> half(dx.size());
    SIGREG_RETURN_IF_ERROR(
        exec.download("dx", half.data(), half.size() * sizeof(uint16_t)));
    dx = widenSixteenBit(m.problem.dxDtype, half);
  }
  result =
      validateGradient(stepGradientProblem(m.problem), dx, grad, flipNorms);
  if (values)
    *values = std::move(dx);
  return Status::success();
}

void sigreg::runtime::mergeStepValidation(ValidationResult &loss,
                                          const ValidationResult &gradient) {
  if (loss.passed && !gradient.passed) {
    loss.passed = false;
    loss.message = "FAIL (dL/dx): " + gradient.message;
  }
}

void sigreg::runtime::printValidation(const ValidationResult &r,
                                      const ProblemDesc &p, FILE *out) {
  if (p.gradient) {
    std::fprintf(out, "%-22s %.9g\n", "||dL/dx||", r.loss);
    std::fprintf(out, "%-22s %.9g\n", "reference ||dL/dx||", r.reference);
    std::fprintf(out, "%-22s %.3e\n", "l2 relative error", r.l2RelError);
    std::fprintf(out, "%-22s %" PRId64 " of %" PRId64 "\n", "unwritten",
                 r.unwritten, r.count);
    std::fprintf(out, "%s\n", r.message.c_str());
    return;
  }
  bool scalar = p.reduction != "none";
  std::fprintf(out, "%-22s %.9g\n", scalar ? "loss" : "loss (mean of T)",
               r.loss);
  std::fprintf(out, "%-22s %.9g\n", scalar ? "reference" : "reference (mean)",
               r.reference);
  std::fprintf(out, "%-22s %.3e\n",
               scalar ? "relative error" : "max relative error", r.relError);
  if (!scalar) {
    std::fprintf(out, "%-22s %.3e\n", "l2 relative error", r.l2RelError);
    std::fprintf(out, "%-22s %" PRId64 " of %" PRId64 "\n", "unwritten",
                 r.unwritten, r.count);
  }
  std::fprintf(out, "%s\n", r.message.c_str());
}
