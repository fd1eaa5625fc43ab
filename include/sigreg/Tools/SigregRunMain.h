//===- SigregRunMain.h - the sigreg-run driver ------------------*- C++ -*-===//

#ifndef SIGREG_TOOLS_SIGREGRUNMAIN_H
#define SIGREG_TOOLS_SIGREGRUNMAIN_H

namespace mlir {
namespace sigreg {

/// sigreg-run: parses a .mlir file, compiles its entry function in process
/// for the CPU or CUDA, runs it on seeded inputs, validates against the
/// float64 reference and optionally benchmarks. Exit codes: 0 pass,
/// 1 mismatch, 2 bad input or compilation error, 3 no GPU for --target=cuda.
int sigregRunMain(int argc, char **argv);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_TOOLS_SIGREGRUNMAIN_H
