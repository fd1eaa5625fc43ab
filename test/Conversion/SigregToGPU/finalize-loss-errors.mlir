// RUN: sigreg-opt %s -split-input-file -verify-diagnostics "--convert-sigreg-to-gpu=hopper=1 single-launch=0"

// More batch tiles (18) than the Hopper kernel's tail gathers: the chain's
// epilogue would run in sigreg_ecf_finalize_loss, which needs the global
// count as a constant like the epilogue kernel does; a count passed in is
// reported at the epilogue, not a crash.
func.func @count_argument(%x: tensor<1x2200x256xbf16>, %a: tensor<256x1024xbf16>, %n: index) -> tensor<f32> {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x2200x256xbf16>, tensor<256x1024xbf16> -> tensor<1x1024x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n world_size = 1 : tensor<1x1024x17xf32>
  // expected-error @+1 {{'sigreg.fused_epilogue' op needs a constant global count on the GPU}}
  %r = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x1024x17xf32> -> tensor<f32>
  return %r : tensor<f32>
}
