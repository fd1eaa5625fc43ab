//===- Harness.cpp - Inputs, validation and benchmarking ------------------===//

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

namespace {
const char *const kSeedRegions[] = {"projection_generation", "projection_gemm",
                                    "trig_reduction", "epilogue"};

/// Rounds `in` to `dtype`, writing device bytes and the rounded values.
void roundToDtype(const std::vector<float> &in, const std::string &dtype,
                  std::vector<uint8_t> &bytes, std::vector<double> &values) {
  size_t n = in.size();
  values.resize(n);
  if (dtype == "f32") {
    bytes.resize(n * 4);
    std::memcpy(bytes.data(), in.data(), n * 4);
    for (size_t i = 0; i < n; ++i)
      values[i] = in[i];
    return;
  }
  bytes.resize(n * 2);
  bool bf16 = dtype == "bf16";
  for (size_t i = 0; i < n; ++i) {
    uint16_t h = bf16 ? sigreg::floatToBF16(in[i]) : sigreg::floatToHalf(in[i]);
    std::memcpy(bytes.data() + 2 * i, &h, 2);
    values[i] = bf16 ? sigreg::bf16ToFloat(h) : sigreg::halfToFloat(h);
  }
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

/// Releases device memory on scope exit (bench input copies, flush buffer).
class ScopedAllocs {
public:
  explicit ScopedAllocs(CudaDriver &d) : drv(d) {}
  ~ScopedAllocs() {
    for (CUdeviceptr p : ptrs) {
      Status s = drv.memFree(p);
      if (!s.ok())
        std::fprintf(stderr, "warning: %s\n", s.message().c_str());
    }
  }
  Status alloc(CUdeviceptr &p, size_t bytes) {
    SIGREG_RETURN_IF_ERROR(drv.memAlloc(p, bytes));
    ptrs.push_back(p);
    return Status::success();
  }

private:
  CudaDriver &drv;
  std::vector<CUdeviceptr> ptrs;
};

class ScopedEvents {
public:
  explicit ScopedEvents(CudaDriver &d) : drv(d) {}
  ~ScopedEvents() {
    for (CUevent e : events) {
      Status s = drv.eventDestroy(e);
      if (!s.ok())
        std::fprintf(stderr, "warning: %s\n", s.message().c_str());
    }
  }
  Status create(size_t n) {
    while (events.size() < n) {
      CUevent e = nullptr;
      SIGREG_RETURN_IF_ERROR(drv.eventCreate(e));
      events.push_back(e);
    }
    return Status::success();
  }
  CUevent operator[](size_t i) const { return events[i]; }

private:
  CudaDriver &drv;
  std::vector<CUevent> events;
};
} // namespace

//===----------------------------------------------------------------------===//
// Inputs and reference
//===----------------------------------------------------------------------===//

Status sigreg::runtime::generateInputs(const ProblemDesc &p,
                                       uint64_t projectionSeed,
                                       uint64_t inputSeed, ProblemInputs &out) {
  if (p.V < 1 || p.N < 1 || p.D < 1 || p.S < 1)
    return Status::error("invalid problem sizes");
  if (dtypeBytes(p.dtype) == 0 || p.dtype == "f64")
    return Status::error("unsupported input dtype '" + p.dtype + "'");
  // Every array below is sized from these products: check them first.
  sigreg::ProblemSizes sizes;
  sizes.V = p.V;
  sizes.N = p.N;
  sizes.D = p.D;
  sizes.S = p.S;
  sizes.P = std::max<int64_t>(p.P, 1);
  sizes.inputBytes = dtypeBytes(p.dtype);
  sigreg::Footprint footprint;
  if (std::string e = sigreg::computeFootprint(sizes, footprint); !e.empty())
    return Status::error("problem too large: " + e);
  out = ProblemInputs();
  out.problem = p;
  out.projectionSeed = projectionSeed;
  out.inputSeed = inputSeed;
  std::vector<float> x(static_cast<size_t>(p.V * p.N * p.D));
  sigreg::fillNormal(inputSeed, x.data(), static_cast<int64_t>(x.size()));
  roundToDtype(x, p.dtype, out.x, out.x64);
  if (p.projection == "explicit") {
    std::vector<float> a(static_cast<size_t>(p.D * p.S));
    sigreg::generateProjection(projectionSeed, p.D, p.S, a.data());
    roundToDtype(a, p.dtype, out.proj, out.A64);
  } else {
    out.A64 = sigreg::referenceProjection(projectionSeed, p.D, p.S);
    if (out.A64.size() != static_cast<size_t>(p.D * p.S))
      return Status::error("referenceProjection returned " +
                           std::to_string(out.A64.size()) + " values for D=" +
                           std::to_string(p.D) + ", S=" + std::to_string(p.S));
  }
  // The kernels compute cos/sin(t_p y) in f32: t_max * max|y| must be
  // finite there. |y[n, s]| <= ||x_n|| ||a_s|| (Cauchy-Schwarz).
  double maxRow = 0, maxCol = 0;
  for (int64_t r = 0; r < p.V * p.N; ++r) {
    double sq = 0;
    for (int64_t d = 0; d < p.D; ++d)
      sq += out.x64[r * p.D + d] * out.x64[r * p.D + d];
    maxRow = std::max(maxRow, std::sqrt(sq));
  }
  for (int64_t s = 0; s < p.S; ++s) {
    double sq = 0;
    for (int64_t d = 0; d < p.D; ++d)
      sq += out.A64[d * p.S + s] * out.A64[d * p.S + s];
    maxCol = std::max(maxCol, std::sqrt(sq));
  }
  if (!sigreg::sliceArgumentRepresentable(p.tMax, maxRow * maxCol)) {
    char buf[160];
    std::snprintf(buf, sizeof(buf),
                  "t_max * max|y| = %g * %g is not finite in f32 (the "
                  "kernels' cos/sin argument)",
                  p.tMax, maxRow * maxCol);
    return Status::error(buf);
  }
  return Status::success();
}

Status sigreg::runtime::computeReference(const ProblemInputs &in,
                                         std::vector<double> &ref,
                                         std::vector<double> *unclipped) {
  const ProblemDesc &p = in.problem;
  sigreg::LossParams params;
  params.numSlices = p.S;
  params.numPoints = p.P;
  params.tMax = p.tMax;
  params.clipValue = p.clipValue;
  if (!sigreg::parseClipMode(p.clip, params.clip))
    return Status::error("unknown clip mode '" + p.clip + "'");
  if (!sigreg::parseReduction(p.reduction, params.reduction))
    return Status::error("unknown reduction '" + p.reduction + "'");
  if (p.gradient) {
    // dL/dx for an all-ones upstream gradient (the runners' convention).
    ref = sigreg::referenceGradient(in.x64.data(), p.V, p.N, p.D, in.A64.data(),
                                    params);
    if (unclipped)
      unclipped->clear();
    if (ref.size() != static_cast<size_t>(outputElementCount(p)))
      return Status::error("reference returned " + std::to_string(ref.size()) +
                           " gradient values, expected " +
                           std::to_string(outputElementCount(p)));
    return Status::success();
  }
  ref = sigreg::referenceLoss(in.x64.data(), p.V, p.N, p.D, in.A64.data(),
                              params);
  if (unclipped) {
    if (params.clip == sigreg::ClipMode::None && p.reduction == "none") {
      *unclipped = ref;
    } else {
      sigreg::LossParams raw = params;
      raw.clip = sigreg::ClipMode::None;
      *unclipped = sigreg::referenceStatistics(in.x64.data(), p.V, p.N, p.D,
                                               in.A64.data(), raw);
    }
    if (unclipped->size() != static_cast<size_t>(p.V * p.S))
      return Status::error(
          "reference returned " + std::to_string(unclipped->size()) +
          " unclipped statistics, expected " + std::to_string(p.V * p.S));
  }
  if (ref.size() != static_cast<size_t>(outputElementCount(p)))
    return Status::error("reference returned " + std::to_string(ref.size()) +
                         " values, expected " +
                         std::to_string(outputElementCount(p)));
  return Status::success();
}

int64_t sigreg::runtime::outputElementCount(const ProblemDesc &p) {
  if (p.gradient)
    return p.V * p.N * p.D;
  return p.reduction == "none" ? p.V * p.S : 1;
}

std::string sigreg::runtime::outputBufferName(const Manifest &m) {
  if (m.findBuffer("out") >= 0 &&
      m.buffers[m.findBuffer("out")].role == BufferRole::Output)
    return "out";
  std::string name;
  for (const BufferDesc &b : m.buffers)
    if (b.role == BufferRole::Output) {
      if (!name.empty())
        return "";
      name = b.name;
    }
  return name;
}

Status sigreg::runtime::checkProblemBuffers(const Manifest &m) {
  if (!m.hasProblem)
    return Status::error("manifest has no \"problem\" object");
  const ProblemDesc &p = m.problem;
  uint64_t elem = dtypeBytes(p.dtype);
  auto expect = [&](const char *name, uint64_t bytes) {
    int i = m.findBuffer(name);
    if (i < 0 || m.buffers[i].role != BufferRole::Input)
      return Status::error(std::string("manifest lacks input buffer '") + name +
                           "'");
    if (m.buffers[i].bytes != bytes)
      return Status::error(std::string("buffer '") + name + "' has " +
                           std::to_string(m.buffers[i].bytes) +
                           " bytes; the problem needs " +
                           std::to_string(bytes));
    if (!m.buffers[i].dtype.empty() && m.buffers[i].dtype != p.dtype)
      return Status::error(std::string("buffer '") + name + "' is " +
                           m.buffers[i].dtype + ", problem dtype is " +
                           p.dtype);
    return Status::success();
  };
  SIGREG_RETURN_IF_ERROR(expect("x", uint64_t(p.V * p.N * p.D) * elem));
  bool explicitProj = p.projection == "explicit";
  if (explicitProj)
    SIGREG_RETURN_IF_ERROR(expect("proj", uint64_t(p.D * p.S) * elem));
  if (p.gradient) {
    // The loss's cotangent: f32, one value or one per statistic.
    int i = m.findBuffer("grad");
    uint64_t want = 4 * uint64_t(p.reduction == "none" ? p.V * p.S : 1);
    if (i < 0 || m.buffers[i].role != BufferRole::Input ||
        m.buffers[i].bytes != want)
      return Status::error("a gradient manifest needs an f32 input buffer "
                           "'grad' of " +
                           std::to_string(want) + " bytes");
  }
  for (const BufferDesc &b : m.buffers)
    if (b.role == BufferRole::Input && b.name != "x" &&
        !(explicitProj && b.name == "proj") &&
        !(p.gradient && b.name == "grad"))
      return Status::error("unexpected input buffer '" + b.name + "'");
  std::string out = outputBufferName(m);
  if (out.empty())
    return Status::error("manifest needs one output buffer (or one named "
                         "'out')");
  const BufferDesc &ob = m.buffers[m.findBuffer(out)];
  uint64_t want = 4 * uint64_t(outputElementCount(p));
  if (ob.bytes != want)
    return Status::error("output buffer '" + out + "' has " +
                         std::to_string(ob.bytes) + " bytes; reduction " +
                         p.reduction + " needs " + std::to_string(want));
  if (!ob.dtype.empty() && ob.dtype != "f32")
    return Status::error("output buffer '" + out + "' must be f32, not " +
                         ob.dtype);
  for (const ScalarDesc &s : m.scalars) {
    bool known = s.name == "seed" || s.name == "V" || s.name == "N" ||
                 s.name == "D" || s.name == "S" || s.name == "P";
    if (!known)
      return Status::error("unknown scalar '" + s.name +
                           "' (the harness sets seed, V, N, D, S, P)");
    if (s.type != ScalarType::I32 && s.type != ScalarType::I64)
      return Status::error("scalar '" + s.name + "' must be i32 or i64");
  }
  return Status::success();
}

Status sigreg::runtime::bindProblem(Executor &exec, const ProblemInputs &in) {
  const Manifest &m = exec.manifest();
  SIGREG_RETURN_IF_ERROR(checkProblemBuffers(m));
  SIGREG_RETURN_IF_ERROR(exec.upload("x", in.x.data(), in.x.size()));
  if (in.problem.projection == "explicit")
    SIGREG_RETURN_IF_ERROR(exec.upload("proj", in.proj.data(), in.proj.size()));
  if (in.problem.gradient) {
    // All-ones upstream gradient, the reference's convention.
    std::vector<float> ones(
        in.problem.reduction == "none" ? in.problem.V * in.problem.S : 1, 1.0f);
    SIGREG_RETURN_IF_ERROR(
        exec.upload("grad", ones.data(), ones.size() * sizeof(float)));
  }
  for (const ScalarDesc &s : m.scalars) {
    const ProblemDesc &p = in.problem;
    int64_t v = s.name == "seed" ? static_cast<int64_t>(in.projectionSeed)
                : s.name == "V"  ? p.V
                : s.name == "N"  ? p.N
                : s.name == "D"  ? p.D
                : s.name == "S"  ? p.S
                                 : p.P;
    if (s.name == "seed" && s.type == ScalarType::I32)
      v = static_cast<int64_t>(static_cast<uint32_t>(in.projectionSeed));
    SIGREG_RETURN_IF_ERROR(exec.setScalarInt(s.name, v));
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

double sigreg::runtime::toleranceForDtype(const std::string &dtype) {
  return dtype == "f32" ? 1e-4 : 2e-3;
}

double sigreg::runtime::gradientToleranceForDtype(const std::string &dtype) {
  return dtype == "f32" ? 1e-3 : 1e-2;
}

ValidationResult
sigreg::runtime::validateGradient(const ProblemDesc &p,
                                  const std::vector<float> &out,
                                  const std::vector<double> &ref) {
  ValidationResult r;
  r.tolerance = gradientToleranceForDtype(p.dtype);
  r.count = static_cast<int64_t>(out.size());
  if (out.size() != ref.size() || out.empty()) {
    r.message = "FAIL: " + std::to_string(out.size()) + " outputs vs " +
                std::to_string(ref.size()) + " reference values";
    return r;
  }
  double diff2 = 0, ref2 = 0, out2 = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], 4);
    if (bits == kPoisonPattern)
      ++r.unwritten;
    if (!std::isfinite(out[i]))
      ++r.nonFinite;
    double d = out[i] - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    out2 += static_cast<double>(out[i]) * out[i];
  }
  r.loss = std::sqrt(out2);
  r.reference = std::sqrt(ref2);
  r.vacuous = ref2 == 0.0;
  r.l2RelError = r.relError = std::sqrt(diff2) / std::max(r.reference, 1e-300);
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
    r.passed = r.l2RelError <= r.tolerance;
    std::snprintf(buf, sizeof(buf),
                  "%s: gradient relative L2 error %.3e %s %.1e (%s inputs)",
                  r.passed ? "PASS" : "FAIL", r.l2RelError,
                  r.passed ? "<=" : ">", r.tolerance, p.dtype.c_str());
  }
  r.message = buf;
  return r;
}

ValidationResult sigreg::runtime::validateOutput(
    const ProblemDesc &p, const std::vector<float> &out,
    const std::vector<double> &ref, const std::vector<double> *unclipped) {
  if (p.gradient)
    return validateGradient(p, out, ref);
  ValidationResult r;
  r.tolerance = toleranceForDtype(p.dtype);
  r.count = static_cast<int64_t>(out.size());
  if (out.size() != ref.size() || out.empty()) {
    r.message = "FAIL: " + std::to_string(out.size()) + " outputs vs " +
                std::to_string(ref.size()) + " reference values";
    return r;
  }
  bool scalar = p.reduction != "none";
  bool clipped = p.clip != "none";
  size_t numStats = static_cast<size_t>(p.V * p.S);
  if (unclipped && unclipped->size() != numStats)
    unclipped = nullptr;
  double sumOut = 0, sumRef = 0, sumAbsRef = 0, diff2 = 0, ref2 = 0;
  bool allZero = true;
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], 4);
    if (bits == kPoisonPattern)
      ++r.unwritten;
    if (!std::isfinite(out[i]))
      ++r.nonFinite;
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
  if (graph)
    SIGREG_RETURN_IF_ERROR(graph->launch(exec.stream()));
  else
    SIGREG_RETURN_IF_ERROR(exec.run());
  SIGREG_RETURN_IF_ERROR(
      exec.synchronize().withContext("running the step list"));
  SIGREG_RETURN_IF_ERROR(exec.download(outName, out.data(), out.size() * 4));
  result = validateOutput(m.problem, out, ref, unclipped);
  if (outputs)
    *outputs = std::move(out);
  return Status::success();
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

//===----------------------------------------------------------------------===//
// Benchmark
//===----------------------------------------------------------------------===//

Status sigreg::runtime::runBenchmark(Executor &exec, const BenchOptions &opt,
                                     BenchResult &res) {
  if (opt.iters < 1 || opt.warmup < 0)
    return Status::error("benchmark needs iters >= 1 and warmup >= 0");
  CudaDriver &drv = exec.driver();
  const Manifest &m = exec.manifest();
  CUstream stream = exec.stream();
  SIGREG_RETURN_IF_ERROR(drv.makeCurrent());
  SIGREG_RETURN_IF_ERROR(exec.synchronize());
  res = BenchResult();
  res.warmup = opt.warmup;
  res.iters = opt.iters;
  res.flushL2 = opt.flushL2;

  // Input rotation: when all inputs together fit in L2, keep enough copies
  // that one sweep over them spans twice the L2 (at most maxInputCopies and
  // 4 GiB), and run iteration i on copy i % copies.
  std::vector<int> inputs;
  for (size_t i = 0; i < m.buffers.size(); ++i)
    if (m.buffers[i].role == BufferRole::Input) {
      inputs.push_back(static_cast<int>(i));
      res.inputBytes += m.buffers[i].bytes;
    }
  uint64_t l2 = static_cast<uint64_t>(std::max(exec.device().l2CacheBytes, 0));
  int copies = 1;
  if (res.inputBytes > 0 && res.inputBytes < l2) {
    uint64_t want = (2 * l2 + res.inputBytes - 1) / res.inputBytes;
    uint64_t memCap = std::max<uint64_t>(1, (4ull << 30) / res.inputBytes);
    copies = static_cast<int>(std::min<uint64_t>(
        {want, static_cast<uint64_t>(std::max(opt.maxInputCopies, 1)),
         memCap}));
  }
  res.inputCopies = copies;
  ScopedAllocs allocs(drv);
  // ptrs[c][k]: copy c of input k (copy 0: the currently bound buffers).
  std::vector<std::vector<CUdeviceptr>> ptrs(copies);
  for (int c = 0; c < copies; ++c)
    for (int k : inputs) {
      CUdeviceptr base = 0;
      SIGREG_RETURN_IF_ERROR(exec.bufferPointer(m.buffers[k].name, base));
      CUdeviceptr p = base;
      if (c > 0) {
        SIGREG_RETURN_IF_ERROR(allocs.alloc(p, m.buffers[k].bytes));
        SIGREG_RETURN_IF_ERROR(drv.memcpyDtoD(p, base, m.buffers[k].bytes));
      }
      ptrs[c].push_back(p);
    }
  SIGREG_RETURN_IF_ERROR(drv.ctxSynchronize());
  auto bindCopy = [&](int c) {
    for (size_t j = 0; j < inputs.size(); ++j)
      SIGREG_RETURN_IF_ERROR(
          exec.bindBuffer(m.buffers[inputs[j]].name, ptrs[c][j]));
    return Status::success();
  };
  std::vector<CUdeviceptr> original =
      ptrs.empty() ? std::vector<CUdeviceptr>() : ptrs[0];

  CUdeviceptr flush = 0;
  if (opt.flushL2) {
    res.flushBytes = std::max<uint64_t>(2 * l2, 64ull << 20) / 4 * 4;
    SIGREG_RETURN_IF_ERROR(allocs.alloc(flush, res.flushBytes));
  }
  uint32_t flushValue = 0;
  auto preRun = [&]() {
    if (!opt.flushL2)
      return Status::success();
    return drv.memsetD32Async(flush, ++flushValue, res.flushBytes / 4, stream);
  };

  Status status = Status::success();
  auto body = [&]() -> Status {
    ScopedEvents ev(drv);
    SIGREG_RETURN_IF_ERROR(
        ev.create(2 * static_cast<size_t>(std::max(opt.iters, opt.warmup))));

    // 1. Per-region times: an event pair around every step.
    std::vector<std::vector<double>> perRegion(exec.regions().size());
    std::vector<RegionTime> times;
    for (int i = 0; i < opt.warmup + opt.iters; ++i) {
      SIGREG_RETURN_IF_ERROR(bindCopy(i % copies));
      SIGREG_RETURN_IF_ERROR(preRun());
      SIGREG_RETURN_IF_ERROR(exec.runTimed(times));
      if (i < opt.warmup)
        continue;
      for (size_t r = 0; r < times.size(); ++r)
        perRegion[r].push_back(times[r].ms);
    }

    // Warm-up then timed runs of `launch(i)` between an event pair each,
    // after `prepare(i)` and the L2 flush (both outside the events).
    auto timeRuns = [&](const std::function<Status(int)> &prepare,
                        const std::function<Status(int)> &launch,
                        std::vector<double> &ms) -> Status {
      for (int pass = 0; pass < 2; ++pass) {
        int n = pass == 0 ? opt.warmup : opt.iters;
        for (int i = 0; i < n; ++i) {
          SIGREG_RETURN_IF_ERROR(prepare(i));
          SIGREG_RETURN_IF_ERROR(preRun());
          SIGREG_RETURN_IF_ERROR(drv.eventRecord(ev[2 * i], stream));
          SIGREG_RETURN_IF_ERROR(launch(i));
          SIGREG_RETURN_IF_ERROR(drv.eventRecord(ev[2 * i + 1], stream));
        }
        SIGREG_RETURN_IF_ERROR(exec.synchronize());
        if (pass == 1)
          for (int i = 0; i < n; ++i) {
            float t = 0;
            SIGREG_RETURN_IF_ERROR(
                drv.eventElapsedMs(ev[2 * i], ev[2 * i + 1], t));
            ms.push_back(t);
          }
      }
      return Status::success();
    };

    // 2. full_forward: one event pair around the whole step list.
    std::vector<double> full;
    SIGREG_RETURN_IF_ERROR(timeRuns([&](int i) { return bindCopy(i % copies); },
                                    [&](int) { return exec.run(); }, full));
    res.fullForwardMs = median(full);

    // 3. full_forward_graph: replays of one captured graph per input copy.
    res.fullForwardGraphMs = -1.0;
    if (opt.graph) {
      std::vector<CudaGraph> graphs(copies);
      for (int c = 0; c < copies; ++c) {
        SIGREG_RETURN_IF_ERROR(bindCopy(c));
        SIGREG_RETURN_IF_ERROR(exec.captureGraph(graphs[c]));
      }
      std::vector<double> replay;
      SIGREG_RETURN_IF_ERROR(timeRuns(
          [](int) { return Status::success(); },
          [&](int i) { return graphs[i % copies].launch(stream); }, replay));
      res.fullForwardGraphMs = median(replay);
    }

    // Region rows: the seed's four first, then the artifact's others.
    const std::vector<std::string> &names = exec.regions();
    auto regionMedian = [&](const std::string &name) {
      for (size_t r = 0; r < names.size(); ++r)
        if (names[r] == name)
          return median(perRegion[r]);
      return 0.0;
    };
    for (const char *name : kSeedRegions)
      res.regions.push_back({name, regionMedian(name), 0.0});
    for (const std::string &name : names) {
      bool seed = false;
      for (const char *s : kSeedRegions)
        seed |= name == s;
      if (!seed)
        res.regions.push_back({name, regionMedian(name), 0.0});
    }
    double total = 0;
    for (const BenchRow &row : res.regions)
      total += row.ms;
    for (BenchRow &row : res.regions)
      row.sharePct = total > 0 ? 100.0 * row.ms / total : 0.0;
    return Status::success();
  };
  status = body();
  // Restore the executor's own buffers whatever happened.
  Status sync = exec.synchronize();
  for (size_t j = 0; j < inputs.size() && !original.empty(); ++j) {
    Status s = exec.bindBuffer(m.buffers[inputs[j]].name, original[j]);
    (void)s;
  }
  if (!status.ok())
    return status.withContext("benchmark");
  return sync;
}

void sigreg::runtime::printBenchTable(const BenchResult &r, FILE *out) {
  std::fprintf(out, "%-24s %12s %9s\n", "region", "time_ms", "share_%");
  for (const BenchRow &row : r.regions)
    std::fprintf(out, "%-24s %12.6f %9.1f\n", row.name.c_str(), row.ms,
                 row.sharePct);
  std::fprintf(out, "%-24s %12.6f %9s\n", "full_forward", r.fullForwardMs, "-");
  if (r.fullForwardGraphMs >= 0)
    std::fprintf(out, "%-24s %12.6f %9s\n", "full_forward_graph",
                 r.fullForwardGraphMs, "-");
  std::fprintf(out,
               "(median of %d runs after %d warm-up; region rows: event pair "
               "around every step; %d input cop%s of %" PRIu64 " bytes; L2 "
               "flush %s)\n",
               r.iters, r.warmup, r.inputCopies,
               r.inputCopies == 1 ? "y" : "ies", r.inputBytes,
               r.flushL2 ? "on" : "off");
}

std::string sigreg::runtime::reportJson(const Executor &exec,
                                        const std::string &artifact,
                                        const ProblemInputs &in,
                                        const ValidationResult *v,
                                        const BenchResult *b) {
  const Manifest &m = exec.manifest();
  const ProblemDesc &p = in.problem;
  const DeviceInfo &d = exec.device();
  std::string j = "{\n";
  j += "  \"artifact\": " + jsonString(artifact) + ",\n";
  j += "  \"function\": " + jsonString(m.function) + ",\n";
  j += "  \"pipeline\": " + jsonString(m.pipeline) + ",\n";
  j += "  \"chip\": " + jsonString(m.chip) + ",\n";
  j += "  \"device\": {\"name\": " + jsonString(d.name) +
       ", \"compute_capability\": \"" + std::to_string(d.ccMajor) + "." +
       std::to_string(d.ccMinor) +
       "\", \"driver_version\": " + std::to_string(d.driverVersion) + "},\n";
  j += "  \"problem\": {\"V\": " + std::to_string(p.V) +
       ", \"N\": " + std::to_string(p.N) + ", \"D\": " + std::to_string(p.D) +
       ", \"S\": " + std::to_string(p.S) + ", \"P\": " + std::to_string(p.P) +
       ", \"t_max\": " + jsonNumber(p.tMax) +
       ", \"clip\": " + jsonString(p.clip) +
       ", \"clip_value\": " + jsonNumber(p.clipValue) +
       ", \"reduction\": " + jsonString(p.reduction) +
       ", \"dtype\": " + jsonString(p.dtype) +
       ", \"projection\": " + jsonString(p.projection) +
       ", \"views\": " + (p.views ? "true" : "false") + "},\n";
  j += "  \"seed\": " + std::to_string(in.projectionSeed) +
       ",\n  \"input_seed\": " + std::to_string(in.inputSeed) + ",\n";
  j += "  \"kernels\": [";
  for (size_t k = 0; k < exec.kernels().size(); ++k) {
    const KernelReport &kr = exec.kernels()[k];
    j += std::string(k ? ", " : "") + "{\"name\": " + jsonString(kr.name) +
         ", \"registers\": " + std::to_string(kr.info.numRegisters) +
         ", \"static_shared_bytes\": " +
         std::to_string(kr.info.staticSharedBytes) +
         ", \"local_bytes\": " + std::to_string(kr.info.localBytes) + "}";
  }
  j += "],\n";
  if (v) {
    j += "  \"validation\": {\"passed\": " +
         std::string(v->passed ? "true" : "false") +
         ", \"loss\": " + jsonNumber(v->loss) +
         ", \"reference\": " + jsonNumber(v->reference) +
         ", \"rel_error\": " + jsonNumber(v->relError) +
         ", \"l2_rel_error\": " + jsonNumber(v->l2RelError) +
         ", \"tolerance\": " + jsonNumber(v->tolerance) +
         ", \"elements\": " + std::to_string(v->count) +
         ", \"unwritten\": " + std::to_string(v->unwritten) +
         ", \"non_finite\": " + std::to_string(v->nonFinite) +
         ", \"message\": " + jsonString(v->message) + "},\n";
  } else {
    j += "  \"validation\": null,\n";
  }
  if (b) {
    j += "  \"bench\": {\"warmup\": " + std::to_string(b->warmup) +
         ", \"iters\": " + std::to_string(b->iters) +
         ", \"input_copies\": " + std::to_string(b->inputCopies) +
         ", \"input_bytes\": " + std::to_string(b->inputBytes) +
         ", \"l2_flush\": " + (b->flushL2 ? "true" : "false") +
         ", \"flush_bytes\": " + std::to_string(b->flushBytes) +
         ",\n    \"regions\": [";
    for (size_t r = 0; r < b->regions.size(); ++r)
      j += std::string(r ? ", " : "") +
           "{\"name\": " + jsonString(b->regions[r].name) +
           ", \"time_ms\": " + jsonNumber(b->regions[r].ms) +
           ", \"share_pct\": " + jsonNumber(b->regions[r].sharePct) + "}";
    j += "],\n    \"full_forward_ms\": " + jsonNumber(b->fullForwardMs) +
         ",\n    \"full_forward_graph_ms\": " +
         (b->fullForwardGraphMs >= 0 ? jsonNumber(b->fullForwardGraphMs)
                                     : std::string("null")) +
         "}\n";
  } else {
    j += "  \"bench\": null\n";
  }
  return j + "}\n";
}

Status sigreg::runtime::writeTextFile(const std::string &path,
                                      const std::string &text) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Status::error("cannot open '" + path + "' for writing");
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  int rc = std::fclose(f);
  if (n != text.size() || rc != 0)
    return Status::error("error writing '" + path + "'");
  return Status::success();
}
