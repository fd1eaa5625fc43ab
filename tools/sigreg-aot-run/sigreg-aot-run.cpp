//===- sigreg-aot-run.cpp - Run, validate and time an AOT artifact --------===//
//
// sigreg-aot-run <artifact-dir> [--seed=N] [--input-seed=N] [--bench]
//                [--warmup=N] [--iters=N] [--json=FILE] [--no-validate]
//                [--no-flush] [--carveout=P] [--device=N]
//
// Exit codes: 0 ok, 1 validation mismatch or a failure while running the
// artifact, 2 usage or input error (bad arguments, manifest or PTX), 3 no GPU.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Runtime/CudaDriver.h"
#include "sigreg/Runtime/Executor.h"
#include "sigreg/Runtime/Harness.h"
#include "sigreg/Runtime/Manifest.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace sigreg::runtime;

namespace {
enum ExitCode { kOk = 0, kMismatch = 1, kUsage = 2, kNoGpu = 3 };

struct Options {
  std::string artifact;
  uint64_t seed = 1;
  uint64_t inputSeed = 2;
  bool bench = false;
  bool validate = true;
  int device = 0;
  std::string json;
  BenchOptions benchOptions;
};

void usage(FILE *out) {
  std::fprintf(
      out,
      "usage: sigreg-aot-run <artifact-dir> [options]\n"
      "  --seed=N          projection seed (default 1)\n"
      "  --input-seed=N    seed of the random inputs (default 2)\n"
      "  --bench           time the artifact: region table, full_forward,\n"
      "                    full_forward_graph (CUDA events, medians)\n"
      "  --warmup=N        warm-up runs per timing mode (default 20)\n"
      "  --iters=N         timed runs per mode, >= 100 (default 200)\n"
      "  --json=FILE       write the results as JSON\n"
      "  --no-validate     skip the float64 reference check\n"
      "  --no-flush        do not overwrite L2 before each timed run\n"
      "  --carveout=P      with --bench: every kernel's preferred "
      "shared-memory\n"
      "                    carveout, P percent of L1/shared (default: the\n"
      "                    driver's choice)\n"
      "  --device=N        CUDA device ordinal (default 0)\n"
      "exit codes: 0 ok, 1 mismatch/run failure, 2 usage/input error, "
      "3 no GPU\n");
}

bool parseU64(const char *text, uint64_t &out) {
  if (!*text || *text == '-')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 0);
  if (errno || *end)
    return false;
  out = v;
  return true;
}

bool parseInt(const char *text, int &out, int lo) {
  uint64_t v = 0;
  if (!parseU64(text, v) || v > 1000000000ull || static_cast<int>(v) < lo)
    return false;
  out = static_cast<int>(v);
  return true;
}

bool parseArgs(int argc, char **argv, Options &o, std::string &err) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    auto value = [&](const char *prefix) -> const char * {
      size_t n = std::strlen(prefix);
      return std::strncmp(a, prefix, n) == 0 ? a + n : nullptr;
    };
    const char *v;
    if (!std::strcmp(a, "--bench")) {
      o.bench = true;
    } else if (!std::strcmp(a, "--no-validate")) {
      o.validate = false;
    } else if (!std::strcmp(a, "--no-flush")) {
      o.benchOptions.flushL2 = false;
    } else if ((v = value("--carveout="))) {
      if (!parseInt(v, o.benchOptions.sharedCarveout, 0) ||
          o.benchOptions.sharedCarveout > 100)
        return err = std::string("invalid --carveout (0-100): ") + v, false;
    } else if ((v = value("--seed="))) {
      if (!parseU64(v, o.seed))
        return err = std::string("invalid --seed: ") + v, false;
    } else if ((v = value("--input-seed="))) {
      if (!parseU64(v, o.inputSeed))
        return err = std::string("invalid --input-seed: ") + v, false;
    } else if ((v = value("--warmup="))) {
      if (!parseInt(v, o.benchOptions.warmup, 0))
        return err = std::string("invalid --warmup: ") + v, false;
    } else if ((v = value("--iters="))) {
      if (!parseInt(v, o.benchOptions.iters, 100))
        return err = std::string("invalid --iters: ") + v +
                     " (at least 100 timed runs)",
               false;
    } else if ((v = value("--device="))) {
      if (!parseInt(v, o.device, 0))
        return err = std::string("invalid --device: ") + v, false;
    } else if ((v = value("--json="))) {
      if (!*v)
        return err = "empty --json file name", false;
      o.json = v;
    } else if (a[0] == '-') {
      return err = std::string("unknown option '") + a + "'", false;
    } else if (o.artifact.empty()) {
      o.artifact = a;
    } else {
      return err = std::string("more than one artifact directory ('") +
                   o.artifact + "', '" + a + "')",
             false;
    }
  }
  if (o.artifact.empty())
    return err = "missing artifact directory", false;
  return true;
}

int fail(int code, const std::string &msg) {
  std::fprintf(stderr, "sigreg-aot-run: %s\n", msg.c_str());
  return code;
}
} // namespace

int main(int argc, char **argv) {
  if (argc == 2 &&
      (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    usage(stdout);
    return kOk;
  }
  Options opt;
  std::string err;
  if (!parseArgs(argc, argv, opt, err)) {
    std::fprintf(stderr, "sigreg-aot-run: %s\n", err.c_str());
    usage(stderr);
    return kUsage;
  }

  Manifest manifest;
  std::string ptx;
  if (!loadArtifact(opt.artifact, manifest, ptx, err))
    return fail(kUsage, err);
  Status s = checkProblemBuffers(manifest);
  if (!s.ok())
    return fail(kUsage, opt.artifact + ": " + s.message());

  if (!CudaDriver::get(err))
    return fail(kNoGpu, err);
  std::unique_ptr<Executor> exec;
  s = Executor::create(manifest, ptx, exec, opt.device);
  if (!s.ok())
    return fail(kUsage, s.message());
  const DeviceInfo &dev = exec->device();
  const ProblemDesc &p = manifest.problem;
  std::printf("artifact   %s (function %s, pipeline %s, %s)\n",
              opt.artifact.c_str(), manifest.function.c_str(),
              manifest.pipeline.c_str(), manifest.chip.c_str());
  std::printf("device     %s (sm_%d%d, %d SMs)\n", dev.name.c_str(),
              dev.ccMajor, dev.ccMinor, dev.multiprocessors);
  std::printf("problem    V=%lld N=%lld D=%lld S=%lld P=%lld t_max=%g "
              "clip=%s(%g) reduction=%s dtype=%s projection=%s\n",
              (long long)p.V, (long long)p.N, (long long)p.D, (long long)p.S,
              (long long)p.P, p.tMax, p.clip.c_str(), p.clipValue,
              p.reduction.c_str(), p.dtype.c_str(), p.projection.c_str());
  for (const KernelReport &k : exec->kernels())
    std::printf("kernel     %s: %d registers, %d B static shared, %d B local\n",
                k.name.c_str(), k.info.numRegisters, k.info.staticSharedBytes,
                k.info.localBytes);

  ProblemInputs inputs;
  s = generateInputs(p, opt.seed, opt.inputSeed, inputs);
  if (!s.ok())
    return fail(kUsage, s.message());
  s = bindProblem(*exec, inputs);
  if (!s.ok())
    return fail(kMismatch, s.message());

  ValidationResult validation;
  bool validated = false;
  if (opt.validate) {
    std::vector<double> ref, unclipped, grad, flipNorms;
    auto t0 = std::chrono::steady_clock::now();
    s = computeReference(inputs, ref, &unclipped);
    if (s.ok() && p.step)
      s = computeGradientReference(inputs, grad, &flipNorms);
    if (!s.ok())
      return fail(kUsage, s.message());
    double refSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    // A step's dL/dx is checked after each run too, and appended to the
    // loss's values for the bitwise comparisons below.
    auto checkStep = [&](ValidationResult &r, std::vector<float> &values,
                         bool print) -> Status {
      if (!p.step)
        return Status::success();
      ValidationResult g;
      std::vector<float> dx;
      SIGREG_RETURN_IF_ERROR(
          validateStepGradient(*exec, grad, &flipNorms, g, &dx));
      if (print)
        printValidation(g, stepGradientProblem(p), stdout);
      values.insert(values.end(), dx.begin(), dx.end());
      mergeStepValidation(r, g);
      return Status::success();
    };
    std::vector<float> first, again, replayed;
    s = runAndValidate(*exec, ref, validation, nullptr, &first, &unclipped);
    if (!s.ok())
      return fail(kMismatch, s.message());
    std::printf("reference  float64 host, %.2f s\n", refSeconds);
    printValidation(validation, p, stdout);
    s = checkStep(validation, first, true);
    if (!s.ok())
      return fail(kMismatch, s.message());
    validated = true;
    // Same inputs again, then through a CUDA graph: the results must be
    // bitwise identical (fixed reduction order, docs/CONTRACT.md section 5).
    ValidationResult second, graphResult;
    s = runAndValidate(*exec, ref, second, nullptr, &again, &unclipped);
    if (s.ok())
      s = checkStep(second, again, false);
    CudaGraph graph;
    if (s.ok())
      s = exec->captureGraph(graph);
    if (s.ok())
      s = runAndValidate(*exec, ref, graphResult, &graph, &replayed,
                         &unclipped);
    if (s.ok())
      s = checkStep(graphResult, replayed, false);
    if (!s.ok())
      return fail(kMismatch, s.message());
    bool same = first.size() == again.size() &&
                !std::memcmp(first.data(), again.data(), first.size() * 4);
    bool sameGraph =
        first.size() == replayed.size() &&
        !std::memcmp(first.data(), replayed.data(), first.size() * 4);
    std::printf("repeat     %s; graph replay %s (%s)\n",
                same ? "bitwise identical" : "DIFFERS (non-deterministic)",
                sameGraph ? "bitwise identical" : "DIFFERS",
                graphResult.message.c_str());
    if (!graphResult.passed && validation.passed) {
      validation.passed = false;
      validation.message = "FAIL (graph replay): " + graphResult.message;
    }
  }

  BenchResult bench;
  if (opt.bench) {
    s = runBenchmark(*exec, opt.benchOptions, bench);
    if (!s.ok())
      return fail(kMismatch, s.message());
    printBenchTable(bench, stdout);
  }

  if (!opt.json.empty()) {
    s = writeTextFile(opt.json, reportJson(*exec, opt.artifact, inputs,
                                           validated ? &validation : nullptr,
                                           opt.bench ? &bench : nullptr));
    if (!s.ok())
      return fail(kUsage, s.message());
  }
  return validated && !validation.passed ? kMismatch : kOk;
}
