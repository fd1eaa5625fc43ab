//===- SigregDialect.h - sigreg dialect -------------------------*- C++ -*-===//

#ifndef SIGREG_DIALECT_SIGREG_IR_SIGREGDIALECT_H
#define SIGREG_DIALECT_SIGREG_IR_SIGREGDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "sigreg/Dialect/Sigreg/IR/SigregOpsDialect.h.inc"

#endif // SIGREG_DIALECT_SIGREG_IR_SIGREGDIALECT_H
