//===- SigregRunMain.cpp - the sigreg-run driver --------------------------===//

#include "sigreg/Tools/SigregRunMain.h"
#include "sigreg/Compiler/CpuJit.h"
#include "sigreg/Compiler/Entry.h"
#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"
#include "sigreg/Runtime/CudaDriver.h"
#include "sigreg/Runtime/Harness.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::sigreg;
namespace rt = ::sigreg::runtime;

namespace {
enum class Target { Auto, Cpu, Cuda };

struct Options {
  llvm::cl::opt<std::string> input{llvm::cl::Positional,
                                   llvm::cl::desc("<input .mlir>"),
                                   llvm::cl::init("-")};
  llvm::cl::opt<Target> target{
      "target", llvm::cl::desc("Where to run"), llvm::cl::init(Target::Auto),
      llvm::cl::values(
          clEnumValN(Target::Auto, "auto", "CUDA when a GPU is present, else CPU"),
          clEnumValN(Target::Cpu, "cpu", "CPU (sigreg-cpu-pipeline + JIT)"),
          clEnumValN(Target::Cuda, "cuda", "NVIDIA GPU (PTX + CUDA driver)"))};
  llvm::cl::opt<std::string> entry{
      "entry", llvm::cl::desc("Function to run (default: the one holding "
                              "a sigreg.loss)")};
  llvm::cl::opt<std::string> shape{
      "shape", llvm::cl::desc("Input shape VxNxD or NxD; fills a dynamic "
                              "batch dimension, must match static ones")};
  llvm::cl::opt<std::string> dtype{
      "dtype", llvm::cl::desc("Override the input element type: bf16, f16, f32")};
  llvm::cl::opt<uint64_t> seed{"seed", llvm::cl::desc("Projection seed"),
                               llvm::cl::init(0)};
  llvm::cl::opt<uint64_t> inputSeed{
      "input-seed", llvm::cl::desc("Seed of the random inputs"),
      llvm::cl::init(1)};
  llvm::cl::opt<bool> bench{"bench", llvm::cl::desc("Benchmark after validating")};
  llvm::cl::opt<int> warmup{"warmup", llvm::cl::desc("Warm-up runs"),
                            llvm::cl::init(20)};
  llvm::cl::opt<int> iters{"iters", llvm::cl::desc("Timed runs (median)"),
                           llvm::cl::init(200)};
  llvm::cl::opt<std::string> json{"json",
                                  llvm::cl::desc("Write results as JSON")};
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

void printHeader(const rt::ProblemDesc &p, StringRef target, StringRef entry) {
  llvm::outs() << "sigreg-run: target=" << target << " entry=@" << entry
               << " x=" << (p.views ? std::to_string(p.V) + "x" : "") << p.N
               << "x" << p.D << "x" << p.dtype << " S=" << p.S << " P=" << p.P
               << " t_max=" << llvm::format("%g", p.tMax) << " clip=" << p.clip;
  if (p.clip != "none")
    llvm::outs() << "(" << llvm::format("%g", p.clipValue) << ")";
  llvm::outs() << " reduction=" << p.reduction << " projection=" << p.projection
               << "\n";
  llvm::outs().flush();
}

int runOnCpu(ModuleOp module, func::FuncOp func, Options &opts,
             const rt::ProblemInputs &inputs, const std::vector<double> &ref) {
  // The CPU path keeps the batch dimension as the IR has it (dynamic or not).
  FailureOr<std::unique_ptr<CpuJit>> jit =
      CpuJit::compile(module, func.getSymName());
  if (failed(jit))
    return 2;
  std::vector<float> out;
  if (failed((*jit)->run(inputs, out)))
    return 2;
  rt::ValidationResult result =
      rt::validateOutput(inputs.problem, out, ref);
  rt::printValidation(result, inputs.problem, stdout);
  if (opts.bench) {
    std::vector<double> ms;
    int iters = std::max(1, std::min<int>(opts.iters, 20));
    for (int i = 0; i < iters; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      if (failed((*jit)->run(inputs, out)))
        return 2;
      auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-22s %.4f (median of %d, CPU wall clock)\n", "time_ms",
                ms[ms.size() / 2], iters);
  }
  std::fflush(stdout);
  return result.passed ? 0 : 1;
}
} // namespace

int mlir::sigreg::sigregRunMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  Options opts;
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "sigreg-run: compile a sigreg function in process, run it on seeded "
      "inputs, validate against a float64 reference, benchmark\n");
  if (opts.iters < 1 || opts.warmup < 0)
    return fail("--iters must be >= 1 and --warmup >= 0");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<SigregDialect>();
  MLIRContext context(registry);

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

  Target target = opts.target;
  if (target != Target::Cpu) {
    std::string why;
    rt::CudaDriver *driver = rt::CudaDriver::get(why);
    if (!driver) {
      if (target == Target::Cuda)
        return fail("--target=cuda: " + why, 3);
      llvm::outs() << "sigreg-run: no GPU (" << why
                   << "); running on the CPU\n";
      target = Target::Cpu;
    }
  }
  if (target != Target::Cpu)
    return fail("the CUDA target is not available in this build yet");

  printHeader(problem, "cpu", func->getSymName());
  rt::ProblemInputs inputs;
  std::vector<double> ref;
  if (rt::Status s = rt::generateInputs(problem, opts.seed, opts.inputSeed,
                                        inputs);
      !s.ok())
    return fail(s.message());
  if (rt::Status s = rt::computeReference(inputs, ref); !s.ok())
    return fail(s.message());
  return runOnCpu(*module, *func, opts, inputs, ref);
}
