// A module without any sigreg.loss: nothing to run, exit code 2.

// RUN: not sigreg-run --target=cpu %s 2>&1 | FileCheck %s
// RUN: (sigreg-run --target=cpu %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// CHECK: error: no function holds a sigreg.loss
// EXIT2: exit=2

// Naming the function does not help: it must return a sigreg.loss.
// RUN: not sigreg-run --target=cpu --entry=identity %s 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: no-loss.mlir:[[@LINE+2]]:1: error: entry function 'identity' must return the result of a sigreg.loss or sigreg.loss_grad (sigreg-run compiles single-block functions of the form (x, seed : i64) or (x, projection) -> sigreg.loss, the seed also as (x, step : memref<i64>) through sigreg.advance_step, (x, seed or projection, grad) -> sigreg.loss_grad, and a training step (x, seed or projection, grad) -> (sigreg.loss, sigreg.loss_grad); or an entry point of the DDP split: (x, seed or projection) -> the cos and sin of sigreg.ecf(sigreg.project), and (x, seed or projection, dcos, dsin) -> sigreg.project_transpose(sigreg.ecf_grad))

func.func @identity(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}
