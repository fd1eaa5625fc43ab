// An entry function whose body has more than one block must be handled
// without crashing: either compiled, or rejected with a clear error and exit
// code 2.
//
// RUN: (sigreg-run --target=cpu --entry=multi_block %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT
// EXIT: exit={{0|2}}
// RUN: (sigreg-run --target=cpu %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT
// RUN: not sigreg-run --target=cpu --entry=multi_block %s 2>&1 | FileCheck %s
// CHECK: error: entry function 'multi_block' must return the result of a sigreg.loss

func.func @multi_block(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  cf.br ^bb1
^bb1:
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
