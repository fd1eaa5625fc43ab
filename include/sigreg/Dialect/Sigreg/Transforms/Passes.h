//===- Passes.h - sigreg dialect passes -------------------------*- C++ -*-===//

#ifndef SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_H
#define SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sigreg {

#define GEN_PASS_DECL
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_H
