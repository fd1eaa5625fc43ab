//===- Entry.h - the entry function a runner compiles -----------*- C++ -*-===//
//
// sigreg-run compiles one function: it takes (x, seed : i64) or
// (x, projection) and returns the result of a sigreg.loss of those arguments.
// This file finds that function, reads the problem it describes, and
// specializes its dynamic batch dimension and element type on request.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_COMPILER_ENTRY_H
#define SIGREG_COMPILER_ENTRY_H

#include "sigreg/Runtime/Manifest.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace mlir {
namespace sigreg {

/// Finds the entry function (`name`, or the only function holding a
/// sigreg.loss when `name` is empty) and checks its form. Emits an error at
/// the offending location and fails otherwise.
FailureOr<func::FuncOp> findEntry(ModuleOp module, StringRef name);

/// Reads the problem of a checked entry function (N = -1 when dynamic).
::sigreg::runtime::ProblemDesc describeEntry(func::FuncOp func);

/// Rewrites the entry's argument types: the batch dimension becomes `batch`
/// when given (it must agree with a static one), the element type of x (and
/// of an explicit projection) becomes `dtype` when given. Fails with an error
/// at the function's location on a mismatch.
LogicalResult specializeEntry(func::FuncOp func, std::optional<int64_t> batch,
                              std::optional<std::string> dtype);

/// A new module holding a copy of the entry function alone, so that the
/// pipelines never see (and never fail on) unrelated functions.
OwningOpRef<ModuleOp> extractEntryModule(func::FuncOp func);

/// Parses "VxNxD" / "NxD" into sizes (-1 for '?'); empty on a syntax error.
SmallVector<int64_t> parseShape(StringRef text);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_COMPILER_ENTRY_H
