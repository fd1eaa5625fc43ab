//===- Registration.h - dialects and extensions of sigreg-run ---*- C++ -*-===//
//
// What sigreg-run registers in its MLIRContext. The default build registers
// every upstream dialect, extension and LLVM IR translation; the static build
// (SIGREG_STATIC_TOOLS) registers only the ones the sigreg pipelines use, so
// the linker leaves out the others' libraries (docs/RELEASE.md). The same
// holds for sigreg-opt's passes.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_TOOLS_REGISTRATION_H
#define SIGREG_TOOLS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace sigreg {

/// Registers the dialects, interface models, conversion interfaces and LLVM IR
/// translations that the CPU and GPU pipelines need, plus the sigreg dialect.
void registerSigregRunDialects(DialectRegistry &registry);

/// What sigreg-opt knows: the sigreg dialect, passes and pipelines, plus every
/// upstream dialect and pass (default build) or the dialects of
/// registerSigregRunDialects and the upstream passes the sigreg pipelines are
/// made of, under their usual names (static build).
void registerSigregOptDialectsAndPasses(DialectRegistry &registry);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_TOOLS_REGISTRATION_H
