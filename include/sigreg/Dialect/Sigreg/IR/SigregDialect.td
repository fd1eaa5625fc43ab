//===- SigregDialect.td - sigreg dialect definition -------*- tablegen -*-===//
//
// The sigreg dialect: SIGReg (Sketched Isotropic Gaussian Regularization)
// as a high-level op, the mid-level ops that mirror the regions of
// docs/CONTRACT.md section 7, and the fused ops the fusion passes produce.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_DIALECT_SIGREG_IR_SIGREGDIALECT_TD
#define SIGREG_DIALECT_SIGREG_IR_SIGREGDIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Sigreg_Dialect : Dialect {
  let name = "sigreg";
  let cppNamespace = "::mlir::sigreg";
  let summary = "SIGReg regularizer: high-level loss, regions and fused kernels";
  let description = [{
    `sigreg.loss` carries every knob of the SIGReg contract (docs/CONTRACT.md
    section 1). `--sigreg-decompose` splits it into the mid-level ops
    (projection, project, ecf, all_reduce_mean, epps_pulley, reduce) that
    mirror the regions of docs/CONTRACT.md section 7; the naive lowering and
    the fusion passes start there.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

class Sigreg_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sigreg_Dialect, mnemonic, traits>;

#endif // SIGREG_DIALECT_SIGREG_IR_SIGREGDIALECT_TD
