//===- HarnessInputs.cpp - seeded inputs, reference, buffers --------------===//
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

namespace {
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

/// The reference's knobs of a problem.
static Status lossParams(const ProblemDesc &p, sigreg::LossParams &params) {
  params.numSlices = p.S;
  params.numPoints = p.P;
  params.tMax = p.tMax;
  params.clipValue = p.clipValue;
  if (!sigreg::parseClipMode(p.clip, params.clip))
    return Status::error("unknown clip mode '" + p.clip + "'");
  if (!sigreg::parseReduction(p.reduction, params.reduction))
    return Status::error("unknown reduction '" + p.reduction + "'");
  return Status::success();
}

Status sigreg::runtime::computeReference(const ProblemInputs &in,
                                         std::vector<double> &ref,
                                         std::vector<double> *unclipped) {
  const ProblemDesc &p = in.problem;
  if (p.gradient)
    return computeGradientReference(in, ref, unclipped);
  sigreg::LossParams params;
  SIGREG_RETURN_IF_ERROR(lossParams(p, params));
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

Status
sigreg::runtime::computeGradientReference(const ProblemInputs &in,
                                          std::vector<double> &grad,
                                          std::vector<double> *flipNorms) {
  const ProblemDesc &p = in.problem;
  sigreg::LossParams params;
  SIGREG_RETURN_IF_ERROR(lossParams(p, params));
  // dL/dx for an all-ones upstream gradient (the runners' convention).
  // Side data: how far each slice near the clip threshold may move dL/dx.
  grad =
      sigreg::referenceGradient(in.x64.data(), p.V, p.N, p.D, in.A64.data(),
                                params, flipNorms, toleranceForDtype(p.dtype));
  if (grad.size() != static_cast<size_t>(p.V * p.N * p.D))
    return Status::error("reference returned " + std::to_string(grad.size()) +
                         " gradient values, expected " +
                         std::to_string(p.V * p.N * p.D));
  if (p.step) {
    for (double &g : grad)
      g *= kStepCotangent;
    if (flipNorms)
      for (double &f : *flipNorms)
        f *= kStepCotangent;
  }
  return Status::success();
}

std::vector<float> sigreg::runtime::runnerCotangent(const ProblemDesc &p) {
  return std::vector<float>(p.reduction == "none" ? p.V * p.S : 1,
                            p.step ? kStepCotangent : 1.0f);
}

std::vector<float>
sigreg::runtime::widenSixteenBit(std::string_view dtype,
                                 const std::vector<uint16_t> &words) {
  bool bf16 = dtype == "bf16";
  std::vector<float> values(words.size());
  for (size_t i = 0; i < words.size(); ++i)
    values[i] =
        bf16 ? sigreg::bf16ToFloat(words[i]) : sigreg::halfToFloat(words[i]);
  return values;
}

ProblemDesc sigreg::runtime::stepGradientProblem(const ProblemDesc &step) {
  ProblemDesc p = step;
  p.step = false;
  p.gradient = true;
  p.dxDtype = "f32"; // the values, widened
  return p;
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

Status sigreg::runtime::planCall(const Manifest &m, CallPlan &plan) {
  plan = CallPlan();
  int outputs = 0, inputs = 0;
  std::string others;
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    const BufferDesc &b = m.buffers[i];
    int index = static_cast<int>(i);
    if (b.role == BufferRole::Output) {
      plan.out = index;
      ++outputs;
    } else if (b.role == BufferRole::Input && b.name == "x") {
      plan.x = index;
    } else if (b.role == BufferRole::Input) {
      if (plan.aux < 0)
        plan.aux = index;
      ++inputs;
      others += (others.empty() ? "'" : ", '") + b.name + "'";
    }
  }
  if (plan.x < 0)
    return Status::error("the artifact has no input 'x'");
  if (inputs > 1)
    return Status::error("the artifact has inputs " + others +
                         " besides 'x'; the call binds one");
  if (outputs != 1)
    return Status::error("the artifact has " + std::to_string(outputs) +
                         " outputs; the call binds one");
  for (const ScalarDesc &s : m.scalars) {
    if (s.name != "seed")
      return Status::error("the artifact has the scalar '" + s.name +
                           "'; the call sets only 'seed'");
    plan.seeded = true;
  }
  return Status::success();
}

/// The buffers of a DDP entry point after x and proj (checked by the
/// caller): "ecf" has f32 outputs cos and sin [V, S, P]; "ecf_backward" has
/// f32 inputs dcos and dsin [V, S, P] and the f32 output out [V, N, D].
static Status checkEntryPointBuffers(const Manifest &m) {
  const ProblemDesc &p = m.problem;
  uint64_t ecfBytes = 4 * uint64_t(p.V * p.S * p.P);
  auto expectF32 = [&](const std::string &name, BufferRole role,
                       uint64_t bytes) {
    int i = m.findBuffer(name);
    if (i < 0 || m.buffers[i].role != role || m.buffers[i].bytes != bytes ||
        (!m.buffers[i].dtype.empty() && m.buffers[i].dtype != "f32"))
      return Status::error(
          "the " + p.entryPoint + " entry point needs an f32 " +
          (role == BufferRole::Input ? "input" : "output") + " buffer '" +
          name + "' of " + std::to_string(bytes) + " bytes");
    return Status::success();
  };
  std::vector<std::string> inputs = {"x"}, outputs;
  if (p.projection == "explicit")
    inputs.push_back("proj");
  if (p.projection == "step")
    inputs.push_back("step");
  if (p.entryPoint == "ecf") {
    outputs = {"cos", "sin"};
    SIGREG_RETURN_IF_ERROR(expectF32("cos", BufferRole::Output, ecfBytes));
    SIGREG_RETURN_IF_ERROR(expectF32("sin", BufferRole::Output, ecfBytes));
  } else {
    inputs.insert(inputs.end(), {"dcos", "dsin"});
    outputs = {"out"};
    SIGREG_RETURN_IF_ERROR(expectF32("dcos", BufferRole::Input, ecfBytes));
    SIGREG_RETURN_IF_ERROR(expectF32("dsin", BufferRole::Input, ecfBytes));
    SIGREG_RETURN_IF_ERROR(
        expectF32("out", BufferRole::Output, 4 * uint64_t(p.V * p.N * p.D)));
  }
  for (const BufferDesc &b : m.buffers) {
    const std::vector<std::string> &known =
        b.role == BufferRole::Input ? inputs : outputs;
    if (b.role != BufferRole::Workspace &&
        std::find(known.begin(), known.end(), b.name) == known.end())
      return Status::error("unexpected buffer '" + b.name + "' in the " +
                           p.entryPoint + " entry point");
  }
  return Status::success();
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
  bool deviceStep = p.projection == "step";
  if (deviceStep) {
    int i = m.findBuffer("step");
    if (i < 0 || m.buffers[i].role != BufferRole::Input ||
        m.buffers[i].bytes != 8 ||
        (!m.buffers[i].dtype.empty() && m.buffers[i].dtype != "i64"))
      return Status::error("a device step's manifest needs an i64 input "
                           "buffer 'step' of 8 bytes");
  }
  if (!p.entryPoint.empty())
    return checkEntryPointBuffers(m);
  if (p.gradient || p.step) {
    // The loss's cotangent: f32, one value or one per statistic.
    int i = m.findBuffer("grad");
    uint64_t want = 4 * uint64_t(p.reduction == "none" ? p.V * p.S : 1);
    if (i < 0 || m.buffers[i].role != BufferRole::Input ||
        m.buffers[i].bytes != want)
      return Status::error("a gradient manifest needs an f32 input buffer "
                           "'grad' of " +
                           std::to_string(want) + " bytes");
  }
  if (p.step) {
    // dL/dx beside the loss.
    int i = m.findBuffer("dx");
    uint64_t want = uint64_t(dtypeBytes(p.dxDtype)) * uint64_t(p.V * p.N * p.D);
    if (i < 0 || m.buffers[i].role != BufferRole::Output ||
        m.buffers[i].bytes != want ||
        (!m.buffers[i].dtype.empty() && m.buffers[i].dtype != p.dxDtype))
      return Status::error(std::string("a step manifest needs ") +
                           (p.dxDtype == "bf16" ? "a " : "an ") + p.dxDtype +
                           " output buffer 'dx' of " + std::to_string(want) +
                           " bytes");
    for (const BufferDesc &b : m.buffers)
      if (b.role == BufferRole::Output && b.name != "out" && b.name != "dx")
        return Status::error("unexpected output buffer '" + b.name +
                             "' in a step manifest (out, dx)");
  }
  for (const BufferDesc &b : m.buffers)
    if (b.role == BufferRole::Input && b.name != "x" &&
        !(explicitProj && b.name == "proj") &&
        !(deviceStep && b.name == "step") &&
        !((p.gradient || p.step) && b.name == "grad"))
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
  if (in.problem.projection == "step") {
    int64_t step = static_cast<int64_t>(in.projectionSeed);
    SIGREG_RETURN_IF_ERROR(exec.upload("step", &step, sizeof(step)));
  }
  if (in.problem.gradient || in.problem.step) {
    // All-ones upstream gradient, the reference's convention; a step's is
    // kStepCotangent (its reference gradient is scaled alike).
    std::vector<float> cotangent = runnerCotangent(in.problem);
    SIGREG_RETURN_IF_ERROR(exec.upload("grad", cotangent.data(),
                                       cotangent.size() * sizeof(float)));
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
