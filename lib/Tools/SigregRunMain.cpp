//===- SigregRunMain.cpp - the sigreg-run driver --------------------------===//

#include "sigreg/Tools/SigregRunMain.h"
#include "sigreg/Compiler/Artifact.h"
#include "sigreg/Compiler/CpuJit.h"
#include "sigreg/Compiler/Entry.h"
#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Reference/Limits.h"
#include "sigreg/Runtime/CudaDriver.h"
#include "sigreg/Runtime/Executor.h"
#include "sigreg/Runtime/Harness.h"
#include "sigreg/Tools/Registration.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::sigreg;
namespace rt = ::sigreg::runtime;

namespace {
enum class Target { Auto, Cpu, Cuda };

struct Options {
  // The GPU compiler's options (GpuPipelineOptions), as flags.
#define SIGREG_GPU_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)              \
  llvm::cl::opt<TYPE> NAME{FLAG, llvm::cl::desc(DESCRIPTION),                  \
                           llvm::cl::init(DEFAULT)};
#include "sigreg/Pipelines/GpuOptions.def"
  llvm::cl::opt<std::string> input{llvm::cl::Positional,
                                   llvm::cl::desc("<input .mlir>"),
                                   llvm::cl::init("-")};
  llvm::cl::opt<Target> target{
      "target", llvm::cl::desc("Where to run"), llvm::cl::init(Target::Auto),
      llvm::cl::values(
          clEnumValN(Target::Auto, "auto",
                     "CUDA when a GPU is present, else CPU"),
          clEnumValN(Target::Cpu, "cpu", "CPU (sigreg-cpu-pipeline + JIT)"),
          clEnumValN(Target::Cuda, "cuda", "NVIDIA GPU (PTX + CUDA driver)"))};
  llvm::cl::opt<std::string> entry{
      "entry", llvm::cl::desc("Function to run (default: the one holding "
                              "a sigreg.loss)")};
  llvm::cl::opt<std::string> shape{
      "shape", llvm::cl::desc("Input shape VxNxD or NxD; fills a dynamic "
                              "batch dimension, must match static ones")};
  llvm::cl::opt<std::string> dtype{
      "dtype",
      llvm::cl::desc("Override the input element type: bf16, f16, f32")};
  llvm::cl::opt<uint64_t> seed{"seed", llvm::cl::desc("Projection seed"),
                               llvm::cl::init(0)};
  llvm::cl::opt<uint64_t> inputSeed{"input-seed",
                                    llvm::cl::desc("Seed of the random inputs"),
                                    llvm::cl::init(1)};
  llvm::cl::opt<bool> bench{"bench",
                            llvm::cl::desc("Benchmark after validating")};
  llvm::cl::opt<int> warmup{"warmup", llvm::cl::desc("Warm-up runs"),
                            llvm::cl::init(20)};
  llvm::cl::opt<int> iters{"iters", llvm::cl::desc("Timed runs (median)"),
                           llvm::cl::init(200)};
  llvm::cl::opt<std::string> json{"json",
                                  llvm::cl::desc("Write results as JSON")};
  llvm::cl::opt<std::string> pipeline{
      "pipeline",
      llvm::cl::desc("CUDA pipelines to run: fused, naive or both (default: "
                     "fused; both with --bench)")};
  llvm::cl::opt<std::string> emitArtifact{
      "emit-artifact",
      llvm::cl::desc("Write each compiled CUDA pipeline as an AOT artifact "
                     "(manifest.json + sigreg.ptx) under DIR/<pipeline>"),
      llvm::cl::value_desc("DIR")};
  llvm::cl::opt<bool> compileOnly{
      "compile-only",
      llvm::cl::desc("CUDA: compile (and emit artifacts), do not run; needs "
                     "no GPU")};
  llvm::cl::opt<std::string> maxMemory{
      "max-memory",
      llvm::cl::desc("Memory budget (bytes, or with a K/M/G/T suffix) for "
                     "the host inputs and reference, the CPU path's "
                     "workspace and the device buffers; default 16G"),
      llvm::cl::value_desc("SIZE")};
};

int fail(const Twine &message, int code = 2) {
  llvm::errs() << "sigreg-run: error: " << message << "\n";
  return code;
}

/// Builds the problem from the entry function and the command line.
LogicalResult resolveProblem(func::FuncOp func, Options &opts,
                             rt::ProblemDesc &problem) {
  std::optional<int64_t> batch;
  problem = describeEntry(func);
  if (!opts.shape.empty()) {
    SmallVector<int64_t> dims = parseShape(opts.shape);
    unsigned rank = problem.views ? 3 : 2;
    if (dims.size() != rank || llvm::is_contained(dims, -1))
      return func.emitError("--shape='")
             << opts.shape << "' must be " << (rank == 3 ? "VxNxD" : "NxD")
             << " with positive sizes for this entry";
    if ((problem.views && dims[0] != problem.V) || dims.back() != problem.D)
      return func.emitError("--shape='")
             << opts.shape << "' disagrees with the static dimensions of the "
             << "input (V=" << problem.V << ", D=" << problem.D << ")";
    batch = dims[rank - 2];
  } else if (problem.N < 0) {
    return func.emitError("the batch dimension is dynamic: give --shape");
  }
  std::optional<std::string> dtype;
  if (!opts.dtype.empty())
    dtype = opts.dtype.getValue();
  if (failed(specializeEntry(func, batch, dtype)))
    return failure();
  problem = describeEntry(func);
  return success();
}

/// Checks, before anything is allocated, that the problem's sizes do not
/// overflow and that what this run allocates fits in the memory budget.
LogicalResult checkProblemSize(func::FuncOp func, const rt::ProblemDesc &p,
                               const ::sigreg::RunKind &run, uint64_t budget) {
  ::sigreg::ProblemSizes sizes;
  sizes.V = p.V;
  sizes.N = p.N;
  sizes.D = p.D;
  sizes.S = p.S;
  sizes.P = p.P;
  sizes.inputBytes = rt::dtypeBytes(p.dtype);
  ::sigreg::Footprint footprint;
  std::string error = ::sigreg::computeFootprint(sizes, footprint);
  if (error.empty())
    error = ::sigreg::checkMemoryBudget(footprint, run, budget);
  if (!error.empty())
    return func.emitError("problem too large: ") << error;
  return success();
}

/// The flags that only the CUDA target reads, in the order they were given on
/// the command line.
SmallVector<std::string> cudaOnlyFlags(Options &opts) {
  SmallVector<std::pair<unsigned, std::string>> given;
  auto note = [&](llvm::cl::Option &o) {
    if (o.getNumOccurrences())
      given.push_back({o.getPosition(), "--" + o.ArgStr.str()});
  };
  note(opts.compileOnly);
  note(opts.emitArtifact);
  note(opts.pipeline);
#define SIGREG_GPU_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)              \
  note(opts.NAME);
#include "sigreg/Pipelines/GpuOptions.def"
  note(opts.warmup); // the CPU benchmark has no warm-up runs
  llvm::sort(given);
  return llvm::to_vector(llvm::make_second_range(given));
}

/// Fails unless `path` can be created or overwritten as a file.
LogicalResult checkWritableFile(StringRef path, StringRef flag) {
  namespace fs = llvm::sys::fs;
  if (path.empty() || fs::is_directory(path)) {
    llvm::errs() << "sigreg-run: error: " << flag << "='" << path
                 << "' is not a file path\n";
    return failure();
  }
  if (fs::exists(path)) {
    if (!fs::can_write(path)) {
      llvm::errs() << "sigreg-run: error: " << flag << "='" << path
                   << "' is not writable\n";
      return failure();
    }
    return success();
  }
  StringRef parent = llvm::sys::path::parent_path(path);
  if (parent.empty())
    parent = ".";
  if (!fs::is_directory(parent) || !fs::can_write(parent)) {
    llvm::errs() << "sigreg-run: error: " << flag << "='" << path
                 << "': directory '" << parent
                 << "' does not exist or is not writable\n";
    return failure();
  }
  return success();
}

/// Fails unless `dir` exists as a writable directory or can be created (its
/// nearest existing ancestor is a writable directory).
LogicalResult checkWritableDir(StringRef dir, StringRef flag) {
  namespace fs = llvm::sys::fs;
  SmallString<256> probe(dir);
  while (!probe.empty() && !fs::exists(probe))
    llvm::sys::path::remove_filename(probe);
  if (probe.empty())
    probe = ".";
  if (!fs::is_directory(probe) || !fs::can_write(probe)) {
    llvm::errs() << "sigreg-run: error: " << flag << "='" << dir << "': '"
                 << probe << "' is not a writable directory\n";
    return failure();
  }
  return success();
}

void printHeader(const rt::ProblemDesc &p, StringRef target, StringRef entry) {
  llvm::outs() << "sigreg-run: target=" << target << " entry=@" << entry
               << " x=" << (p.views ? std::to_string(p.V) + "x" : "") << p.N
               << "x" << p.D << "x" << p.dtype << " S=" << p.S << " P=" << p.P
               << " t_max=" << llvm::format("%g", p.tMax) << " clip=" << p.clip;
  if (p.clip != "none")
    llvm::outs() << "(" << llvm::format("%g", p.clipValue) << ")";
  llvm::outs() << " reduction=" << p.reduction
               << " projection=" << p.projection;
  if (p.gradient)
    llvm::outs() << " output=dL/dx";
  if (p.step)
    llvm::outs() << " output=loss,dL/dx";
  if (p.entryPoint == "ecf")
    llvm::outs() << " entry_point=ecf output=cos,sin";
  else if (p.entryPoint == "ecf_backward")
    llvm::outs() << " entry_point=ecf_backward output=dL/dx";
  llvm::outs() << "\n";
  llvm::outs().flush();
}

/// The float64 references of a run.
struct References {
  std::vector<double> ref, unclipped;  // computeReference
  std::vector<double> grad, flipNorms; // a step's dL/dx
};

/// Compiles a copy of the entry with clip none and reduction none, runs it on
/// the CPU on the same inputs and validates each unclipped statistic.
FailureOr<rt::ValidationResult>
checkUnclipped(ModuleOp module, func::FuncOp func,
               const rt::ProblemInputs &inputs,
               const std::vector<double> &unclipped) {
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  auto entry = copy->lookupSymbol<func::FuncOp>(func.getSymName());
  LossOp loss;
  entry.walk([&](LossOp op) { loss = op; });
  if (!loss)
    return failure();
  Builder b(copy->getContext());
  loss.setClip(ClipMode::none);
  loss.setClipValue(APFloat(0.0));
  loss.setReduction(Reduction::none);
  RankedTensorType in = loss.getInput().getType();
  SmallVector<int64_t> shape;
  if (loss.hasViews())
    shape.push_back(in.getDimSize(0));
  shape.push_back(loss.getNumSlices());
  auto statsType = RankedTensorType::get(shape, b.getF32Type());
  loss.getResult().setType(statsType);
  entry.setFunctionType(
      b.getFunctionType(entry.getArgumentTypes(), TypeRange{statsType}));
  FailureOr<std::unique_ptr<CpuJit>> jit =
      CpuJit::compile(*copy, entry.getSymName());
  if (failed(jit))
    return failure();
  rt::ProblemInputs rawInputs = inputs;
  rawInputs.problem.clip = "none";
  rawInputs.problem.clipValue = 0.0;
  rawInputs.problem.reduction = "none";
  std::vector<float> out;
  if (failed((*jit)->run(rawInputs, out)))
    return failure();
  return rt::validateOutput(rawInputs.problem, out, unclipped, &unclipped);
}

int runOnCpu(ModuleOp module, func::FuncOp func, Options &opts,
             const rt::ProblemInputs &inputs, const References &refs) {
  const std::vector<double> &ref = refs.ref, &unclipped = refs.unclipped;
  // The CPU path keeps the batch dimension as the IR has it (dynamic or not).
  FailureOr<std::unique_ptr<CpuJit>> jit =
      CpuJit::compile(module, func.getSymName());
  if (failed(jit))
    return 2;
  std::vector<float> out, dx;
  if (failed((*jit)->run(inputs, out, &dx)))
    return 2;
  rt::ValidationResult result =
      rt::validateOutput(inputs.problem, out, ref, &unclipped);
  rt::printValidation(result, inputs.problem, stdout);
  if (inputs.problem.step) {
    rt::ProblemDesc gp = rt::stepGradientProblem(inputs.problem);
    rt::ValidationResult g =
        rt::validateGradient(gp, dx, refs.grad, &refs.flipNorms);
    rt::printValidation(g, gp, stdout);
    rt::mergeStepValidation(result, g);
  }
  // Clipping can hide a wrong statistic: also run the entry with clip none
  // and reduction none and compare every unclipped statistic (the loss alone:
  // not for a gradient or a step).
  if (inputs.problem.clip != "none" && !inputs.problem.gradient &&
      !inputs.problem.step) {
    FailureOr<rt::ValidationResult> raw =
        checkUnclipped(module, func, inputs, unclipped);
    if (failed(raw))
      return 2;
    std::printf("%-22s %s\n", "unclipped statistics", raw->message.c_str());
    if (!raw->passed && result.passed) {
      result.passed = false;
      result.message =
          "FAIL: the unclipped statistics do not match (" + raw->message + ")";
      std::printf("%s\n", result.message.c_str());
    }
  }
  double cpuMs = -1.0;
  if (opts.bench) {
    std::vector<double> ms;
    int iters = std::max(1, std::min<int>(opts.iters, 20));
    for (int i = 0; i < iters; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      if (failed((*jit)->run(inputs, out, &dx)))
        return 2;
      auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-22s %.4f (median of %d, CPU wall clock)\n", "time_ms",
                ms[ms.size() / 2], iters);
    cpuMs = ms[ms.size() / 2];
  }
  if (!opts.json.empty()) {
    const rt::ProblemDesc &p = inputs.problem;
    llvm::json::Object report{
        {"target", "cpu"},
        {"input", opts.input.getValue()},
        {"problem", problemToJson(p)},
        {"validation", llvm::json::Object{{"passed", result.passed},
                                          {"loss", result.loss},
                                          {"reference", result.reference},
                                          {"rel_error", result.relError},
                                          {"l2_rel_error", result.l2RelError},
                                          {"tolerance", result.tolerance},
                                          {"message", result.message}}}};
    if (cpuMs >= 0)
      report["time_ms"] = cpuMs;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
    if (rt::Status st = rt::writeTextFile(opts.json, text); !st.ok())
      return fail(st.message());
  }
  std::fflush(stdout);
  return result.passed ? 0 : 1;
}

/// Writes the artifacts of one run atomically: each pipeline's files go to
/// DIR/.sigreg-run-tmp-XXXXXX/<pipeline>, and only when every pipeline has
/// compiled are the <pipeline> directories renamed into DIR (replacing older
/// ones). The temporary directory is removed whatever happens.
class ArtifactStaging {
public:
  explicit ArtifactStaging(StringRef root) : root(root.str()) {}
  ~ArtifactStaging() {
    if (!temp.empty())
      (void)llvm::sys::fs::remove_directories(temp);
  }

  LogicalResult stage(StringRef name, const std::string &manifest,
                      const std::string &ptx) {
    namespace fs = llvm::sys::fs;
    if (temp.empty()) {
      if (std::error_code ec = fs::create_directories(root))
        return error("cannot create '" + root + "': " + ec.message());
      fs::createUniquePath(root + "/.sigreg-run-tmp-%%%%%%", temp,
                           /*MakeAbsolute=*/false);
      if (std::error_code ec = fs::create_directory(temp)) {
        std::string t(temp);
        temp.clear();
        return error("cannot create '" + t + "': " + ec.message());
      }
    }
    std::string dir = (temp + "/" + name).str();
    if (std::error_code ec = fs::create_directory(dir))
      return error("cannot create '" + dir + "': " + ec.message());
    for (auto [file, text] : {std::pair<const char *, const std::string *>{
                                  "manifest.json", &manifest},
                              {"sigreg.ptx", &ptx}})
      if (rt::Status st = rt::writeTextFile(dir + "/" + file, *text); !st.ok())
        return error(st.message());
    names.push_back(name.str());
    return success();
  }

  /// Moves every staged directory into place.
  LogicalResult commit() {
    namespace fs = llvm::sys::fs;
    for (const std::string &name : names) {
      std::string from = (temp + "/" + name).str(), to = root + "/" + name;
      if (fs::exists(to)) {
        std::string old = (temp + "/old-" + name).str();
        if (std::error_code ec = fs::rename(to, old))
          return error("cannot replace '" + to + "': " + ec.message());
      }
      if (std::error_code ec = fs::rename(from, to))
        return error("cannot move '" + from + "' to '" + to +
                     "': " + ec.message());
      llvm::outs() << "sigreg-run: wrote " << to << "/manifest.json and " << to
                   << "/sigreg.ptx\n";
    }
    return success();
  }

private:
  LogicalResult error(const Twine &message) {
    llvm::errs() << "sigreg-run: error: " << message << "\n";
    return failure();
  }
  std::string root;
  SmallString<256> temp;
  SmallVector<std::string> names;
};

/// Compiles the requested CUDA pipelines, writes artifacts, and (unless
/// --compile-only) runs, validates and benchmarks each on the GPU.
int runOnCuda(ModuleOp module, func::FuncOp func, Options &opts,
              const rt::ProblemInputs &inputs, const References &refs) {
  SmallVector<GpuPipelineKind> kinds;
  StringRef which = opts.pipeline;
  if (which.empty())
    which = opts.bench ? "both" : "fused";
  if (which == "fused" || which == "both")
    kinds.push_back(GpuPipelineKind::Fused);
  if (which == "naive" || which == "both")
    kinds.push_back(GpuPipelineKind::Naive);
  if (kinds.empty())
    return fail("--pipeline must be fused, naive or both, got '" + which + "'");

  GpuPipelineOptions gpuOpts;
#define SIGREG_GPU_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)              \
  gpuOpts.NAME = opts.NAME;
#include "sigreg/Pipelines/GpuOptions.def"
  std::string jsonReports;
  int exitCode = 0;
  ArtifactStaging staging(opts.emitArtifact);
  for (GpuPipelineKind kind : kinds) {
    StringRef name = stringifyPipeline(kind);
    FailureOr<Artifact> artifact = compileForCuda(
        module, func.getSymName(), inputs.problem, kind, gpuOpts);
    if (failed(artifact))
      return 2;
    rt::Manifest manifest;
    std::string err;
    if (!rt::parseManifest(artifact->manifestJson, manifest, err))
      return fail("internal error: generated manifest does not parse: " + err);
    if (rt::Status st = rt::checkProblemBuffers(manifest); !st.ok())
      return fail("internal error: " + st.message());
    if (!opts.emitArtifact.empty() &&
        failed(staging.stage(name, artifact->manifestJson, artifact->ptx)))
      return 2;
    if (opts.compileOnly) {
      llvm::outs() << "sigreg-run: " << name
                   << " pipeline: " << manifest.steps.size() << " steps, "
                   << artifact->ptx.size() << " bytes of PTX\n";
      continue;
    }
    llvm::outs() << "== " << name << " pipeline ==\n";
    llvm::outs().flush();
    std::unique_ptr<rt::Executor> exec;
    if (rt::Status st = rt::Executor::create(manifest, artifact->ptx, exec);
        !st.ok())
      return fail(st.message());
    if (rt::Status st = rt::bindProblem(*exec, inputs); !st.ok())
      return fail(st.message());
    rt::ValidationResult result;
    if (rt::Status st = rt::runAndValidate(*exec, refs.ref, result, nullptr,
                                           nullptr, &refs.unclipped);
        !st.ok())
      return fail(st.message(), 1);
    rt::printValidation(result, inputs.problem, stdout);
    if (inputs.problem.step) {
      rt::ValidationResult g;
      if (rt::Status st =
              rt::validateStepGradient(*exec, refs.grad, &refs.flipNorms, g);
          !st.ok())
        return fail(st.message(), 1);
      rt::printValidation(g, rt::stepGradientProblem(inputs.problem), stdout);
      rt::mergeStepValidation(result, g);
    }
    if (!result.passed)
      exitCode = 1;
    rt::BenchResult bench;
    bool benched = false;
    if (opts.bench && result.passed) {
      rt::BenchOptions bo;
      bo.warmup = opts.warmup;
      bo.iters = opts.iters;
      if (rt::Status st = rt::runBenchmark(*exec, bo, bench); !st.ok())
        return fail(st.message(), 1);
      rt::printBenchTable(bench, stdout);
      benched = true;
    }
    std::fflush(stdout);
    if (!opts.json.empty()) {
      if (!jsonReports.empty())
        jsonReports += ",\n";
      jsonReports += "\"" + name.str() + "\": " +
                     rt::reportJson(*exec, opts.input, inputs, &result,
                                    benched ? &bench : nullptr);
    }
  }
  if (!opts.emitArtifact.empty() && failed(staging.commit()))
    return 2;
  if (!opts.json.empty() && !opts.compileOnly)
    if (rt::Status st =
            rt::writeTextFile(opts.json, "{\n" + jsonReports + "\n}\n");
        !st.ok())
      return fail(st.message());
  return exitCode;
}
} // namespace

int mlir::sigreg::sigregRunMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  Options opts;
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv,
          "sigreg-run: compile a sigreg function in process, run it on seeded "
          "inputs, validate against a float64 reference, benchmark\n",
          &llvm::errs()))
    return 2;
  if (opts.iters < 1 || opts.warmup < 0)
    return fail("--iters must be >= 1 and --warmup >= 0");
  // A flag given with an empty value would silently mean "not given".
  for (llvm::cl::opt<std::string> *o :
       {&opts.shape, &opts.dtype, &opts.entry, &opts.json, &opts.pipeline,
        &opts.emitArtifact, &opts.chip, &opts.maxMemory})
    if (o->getNumOccurrences() && o->getValue().empty())
      return fail("--" + o->ArgStr + "= needs a value");
  uint64_t budget = ::sigreg::kDefaultMemoryBudget;
  if (!opts.maxMemory.empty() &&
      !::sigreg::parseByteSize(opts.maxMemory, budget))
    return fail("--max-memory='" + opts.maxMemory +
                "' must be a positive byte count, optionally with a K, M, G "
                "or T suffix");
  if (!opts.bench &&
      (opts.iters.getNumOccurrences() || opts.warmup.getNumOccurrences()))
    return fail("--iters and --warmup apply to --bench only");
  if (opts.compileOnly && (opts.bench || !opts.json.empty()))
    return fail("--bench and --json need a run; --compile-only runs nothing");

  DialectRegistry registry;
  registerSigregRunDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  auto file = openInputFile(opts.input, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 2;

  FailureOr<func::FuncOp> func = findEntry(*module, opts.entry);
  if (failed(func))
    return 2;
  rt::ProblemDesc problem;
  if (failed(resolveProblem(*func, opts, problem)))
    return 2;
  // The runners validate the loss and its gradient; the DDP split's entry
  // points (the same kernels) are validated by the module that calls them.
  if (!problem.entryPoint.empty() &&
      !(opts.compileOnly && opts.target == Target::Cuda))
    return fail("the " + problem.entryPoint +
                " entry point is compiled for the PyTorch module, which "
                "validates it (docs/TORCH.md): use --target=cuda "
                "--compile-only --emit-artifact=DIR");

  Target target = opts.target;
  if (target != Target::Cpu && !(target == Target::Cuda && opts.compileOnly)) {
    std::string why;
    rt::CudaDriver *driver = rt::CudaDriver::get(why);
    if (!driver) {
      if (target == Target::Cuda)
        return fail("--target=cuda: " + why, 3);
      llvm::outs() << "sigreg-run: no GPU (" << why
                   << "); running on the CPU\n";
      target = Target::Cpu;
    } else {
      target = Target::Cuda;
    }
  }
  if (target == Target::Cpu) {
    SmallVector<std::string> given = cudaOnlyFlags(opts);
    if (!given.empty())
      return fail(llvm::join(given, ", ") + " appl" +
                  (given.size() == 1 ? "ies" : "y") +
                  " to --target=cuda only, not to the CPU target" +
                  (opts.target == Target::Auto ? " (no GPU was found)" : ""));
  }
  // Output paths, before anything is compiled or written.
  if (!opts.json.empty() && failed(checkWritableFile(opts.json, "--json")))
    return 2;
  if (!opts.emitArtifact.empty() &&
      failed(checkWritableDir(opts.emitArtifact, "--emit-artifact")))
    return 2;
  ::sigreg::RunKind run;
  run.hostInputs = !opts.compileOnly;
  run.naiveCpu = target == Target::Cpu;
  run.device = target == Target::Cuda;
  run.naiveDevice =
      target == Target::Cuda &&
      (problem.gradient || problem.step || opts.pipeline == "naive" ||
       opts.pipeline == "both" || (opts.pipeline.empty() && opts.bench));
  if (failed(checkProblemSize(*func, problem, run, budget)))
    return 2;

  printHeader(problem, target == Target::Cpu ? "cpu" : "cuda",
              func->getSymName());
  rt::ProblemInputs inputs;
  inputs.problem = problem;
  References refs;
  if (!opts.compileOnly) {
    if (rt::Status s =
            rt::generateInputs(problem, opts.seed, opts.inputSeed, inputs);
        !s.ok())
      return fail(s.message());
    if (rt::Status s = rt::computeReference(inputs, refs.ref, &refs.unclipped);
        !s.ok())
      return fail(s.message());
    if (problem.step)
      if (rt::Status s =
              rt::computeGradientReference(inputs, refs.grad, &refs.flipNorms);
          !s.ok())
        return fail(s.message());
  }
  // Compile the entry alone: other functions of the file are not ours.
  OwningOpRef<ModuleOp> entryModule = extractEntryModule(*func);
  auto entry = cast<func::FuncOp>(entryModule->getBody()->front());
  if (target == Target::Cuda)
    return runOnCuda(*entryModule, entry, opts, inputs, refs);
  return runOnCpu(*entryModule, entry, opts, inputs, refs);
}
