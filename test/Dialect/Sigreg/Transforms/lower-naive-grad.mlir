// RUN: sigreg-opt %s --sigreg-lower-naive | FileCheck %s

// --sigreg-lower-naive on the backward ops: linalg.generic on tensors, as
// eager autograd would run them (the [V, N, S, P] angles are materialized
// again), each tagged with its backward region.

// The maps of project_transpose (printed first): dy (v, n, s) and A (d, s).
// CHECK-DAG:   #[[DY:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[AT:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// ecf_cotangent: the unclipped statistic (a reduction over p), the weight
// omega = 2 * count * grad[v, s] gated where clamp_min replaced T, then
// dcos = omega w_p (cos - phi_p) and dsin = omega w_p sin.
// CHECK-LABEL: func.func @cotangent(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]{{.*}}sigreg.region = "backward_epilogue"
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}}sigreg.region = "backward_epilogue"
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
// CHECK:         linalg.generic {{.*}}sigreg.region = "backward_epilogue"
// CHECK:           arith.subf
// CHECK:         linalg.generic {{.*}}sigreg.region = "backward_epilogue"
// CHECK-NOT:       arith.subf
// CHECK:         return
func.func @cotangent(%c: tensor<2x8x5xf32>, %s: tensor<2x8x5xf32>, %n: index, %g: tensor<2x8xf32>) -> (tensor<2x8x5xf32>, tensor<2x8x5xf32>) {
  %dc, %ds = sigreg.ecf_cotangent %c, %s, %n, %g clip = clamp_min(0.5) reduction = none : tensor<2x8x5xf32>, tensor<2x8xf32>
  return %dc, %ds : tensor<2x8x5xf32>, tensor<2x8x5xf32>
}

// ecf_grad: args = y t_p [V, N, S, P], t_p (dsin cos - dcos sin), summed over
// p, divided by the local batch size.
// CHECK-LABEL: func.func @ecf_grad(
// CHECK:         linalg.generic {{.*}} outs({{.*}} : tensor<2x?x8x5xf32>) attrs =  {sigreg.region = "backward_trig"}
// CHECK:         linalg.generic {{.*}} outs({{.*}} : tensor<2x?x8x5xf32>) attrs =  {sigreg.region = "backward_trig"}
// CHECK:           math.cos
// CHECK:           math.sin
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}}sigreg.region = "backward_trig"
// CHECK:         linalg.generic {{.*}}sigreg.region = "backward_trig"
// CHECK:           arith.divf
func.func @ecf_grad(%y: tensor<2x?x8xf32>, %dc: tensor<2x8x5xf32>, %ds: tensor<2x8x5xf32>) -> tensor<2x?x8xf32> {
  %0 = sigreg.ecf_grad %y, %dc, %ds : tensor<2x?x8xf32>, tensor<2x8x5xf32>
  return %0 : tensor<2x?x8xf32>
}

// project_transpose: dx[v, n, d] += dy[v, n, s] * A[d, s], loops (v, n, d, s),
// the 16-bit projection widened to f32.
// CHECK-LABEL: func.func @project_transpose(
// CHECK:         linalg.generic {indexing_maps = [#[[DY]], #[[AT]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}{{.*}}sigreg.region = "backward_gemm"
// CHECK:           arith.extf
func.func @project_transpose(%dy: tensor<2x4x8xf32>, %a: tensor<16x8xbf16>) -> tensor<2x4x16xf32> {
  %0 = sigreg.project_transpose %dy, %a : tensor<2x4x8xf32>, tensor<16x8xbf16> -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}
