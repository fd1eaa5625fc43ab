//===- SigregOps.h - sigreg dialect ops -------------------------*- C++ -*-===//

#ifndef SIGREG_DIALECT_SIGREG_IR_SIGREGOPS_H
#define SIGREG_DIALECT_SIGREG_IR_SIGREGOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "sigreg/Dialect/Sigreg/IR/SigregDialect.h"

#include "sigreg/Dialect/Sigreg/IR/SigregEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sigreg/Dialect/Sigreg/IR/SigregAttrs.h.inc"

#define GET_OP_CLASSES
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h.inc"

#endif // SIGREG_DIALECT_SIGREG_IR_SIGREGOPS_H
