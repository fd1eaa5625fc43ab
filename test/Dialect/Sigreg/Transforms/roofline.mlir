// RUN: sigreg-opt %s --sigreg-decompose --sigreg-roofline=element-bytes=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SEED
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-roofline=batch=48 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAIVE
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --sigreg-roofline="batch=48 json=%t.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --sigreg-roofline="block-rows=16 projection-chunk=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: sigreg-opt %s --sigreg-roofline -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOSS
// The schedule attribute, when there is one, decides the tiles (as it does for
// --convert-sigreg-to-gpu): block-rows=16 given to --sigreg-choose-schedule
// only, not to the roofline.
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue "--sigreg-choose-schedule=block-rows=16 single-launch=0" --sigreg-roofline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTR
// The tiles' sums that the finalize reads: one per batch tile of the transposed
// Hopper tile, one per group of CTAs when it is persistent.
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue "--sigreg-choose-schedule=hopper=true wgmma-rows=256" --sigreg-roofline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRANS
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue "--sigreg-choose-schedule=hopper=true wgmma-rows=256 wgmma-persistent=true" --sigreg-roofline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TPERS

// The pass is an analysis: the IR is the same with and without it.
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf -o %t.before
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-roofline -o %t.after 2>/dev/null
// RUN: diff %t.before %t.after

//===----------------------------------------------------------------------===//
// The blog shape: B = 32, D = 2048, S = 1024, P = 17, x bf16.
//
// Naive path, element-bytes=2 (the seed's one q = 2 for everything):
//   projection_generation  FLOPs S(1 + 3D) = 1024 * 6145           = 6292480
//                          bytes 3DSq = 3 * 2048 * 1024 * 2         = 12582912
//   projection_gemm        FLOPs 2BDS = 2 * 32 * 2048 * 1024        = 134217728
//                          bytes (BD + DS + BS)q
//                              = (65536 + 2097152 + 32768) * 2      = 4390912
//   trig_reduction         FLOPs BSP + 0 + 2BSP + 2SP
//                              = 557056 + 1114112 + 34816           = 1705984
//                          bytes (BSP + BS + P)q + 3BSPq + (2BSP + 2SP)q
//                              = (6 * 557056 + 32768 + 17 + 34816) * 2
//                              = 3409937 * 2                        = 6819874
//                          SFU 2BSP (cos and sin)                   = 1114112
//   epilogue               FLOPs 4SP + (2SP + S) + (S + 1)
//                              = 69632 + 35840 + 1025               = 106497
//                          bytes (3SP + P)q + (SP + P + S)q + (S + 1)q
//                              = (52241 + 18449 + 1025) * 2         = 143430
//   total  FLOPs S(D(2B + 3) + P(3B + 8) + 3) + 1
//              = 1024 * (137216 + 1768 + 3) + 1                     = 142322689
//          bytes (D(B + 4S) + (3P + 1)(2S(B + 1) + 1))q
//              = (2048 * 4128 + 52 * 67585) * 2 = 11968564 * 2      = 23937128
//   intensity 142322689 / 23937128 = 5.9457
//
// Naive path, per-type q (x bf16: 2; A and every f32 intermediate: 4): the
// same FLOPs; bytes 3DS*4 = 25165824, BD*2 + DS*4 + BS*4 = 8650752,
// 3409937*4 = 13639748, 71715*4 = 286860; total 47743184.
//
// Fused path (x bf16, seeded, SIMT kernel since 1*1*8 blocks < 66; 32 rows
// per block, so one batch tile: no partials; 74 chunks of 28 rows of D, the
// rows that let ceil(S/256) * chunks = 4 * 74 generator blocks fill the GPU,
// 2048 * 4 / 264 -> 28):
//   projection_generation  FLOPs 2DS                                = 4194304
//                          bytes (DS + 74S) * 4 (g, chunk sums)     = 8691712
//   projection_gemm        FLOPs 2BDS + 74S + S + BS
//                              = 134217728 + 75776 + 1024 + 32768   = 134327296
//                          bytes BD*2 + (DS + 74S)*4
//                              = 131072 + 8691712                   = 8822784
//   trig_reduction         FLOPs BS(1 + 6(P - 1) + 2P) + 2SP
//                              = 32768 * 131 + 34816                = 4327424
//                          bytes 2SP * 4 (cos/sin means)            = 139264
//                          SFU 2BS                                  = 65536
//   epilogue               FLOPs 6SP + S + (S + 1)
//                              = 104448 + 1024 + 1025               = 106497
//                          bytes 2SP * 4 + 4                        = 139268
//   total  FLOPs 142955521, bytes 17793028, intensity 8.0344
//===----------------------------------------------------------------------===//

// SEED-LABEL: remark: roofline: @blog path=naive q=2
// SEED:       remark: projection_generation: flops=6292480 bytes=12582912 intensity=0.5001
// SEED:       remark: projection_gemm: flops=134217728 bytes=4390912 intensity=30.5672
// SEED:       remark: trig_reduction: flops=1705984 bytes=6819874 intensity=0.2501 sfu=1114112
// SEED:       remark: epilogue: flops=106497 bytes=143430 intensity=0.7425
// SEED:       remark: total: flops=142322689 bytes=23937128 intensity=5.9457 sfu=1114112

// NAIVE-LABEL: remark: roofline: @blog path=naive q=per-type (x: input dtype, f32: 4)
// NAIVE:       remark: projection_generation: flops=6292480 bytes=25165824 intensity=0.2500
// NAIVE:       remark: projection_gemm: flops=134217728 bytes=8650752 intensity=15.5152
// NAIVE:       remark: trig_reduction: flops=1705984 bytes=13639748 intensity=0.1251 sfu=1114112
// NAIVE:       remark: epilogue: flops=106497 bytes=286860 intensity=0.3713
// NAIVE:       remark: total: flops=142322689 bytes=47743184 intensity=2.9810 sfu=1114112

// FUSED-LABEL: remark: roofline: @blog path=fused q=per-type
// FUSED:       remark: projection_generation: flops=4194304 bytes=8691712 intensity=0.4826
// FUSED:       remark: projection_gemm: flops=134327296 bytes=8822784 intensity=15.2250
// FUSED:       remark: trig_reduction: flops=4327424 bytes=139264 intensity=31.0735 sfu=65536
// FUSED:       remark: epilogue: flops=106497 bytes=139268 intensity=0.7647
// FUSED:       remark: total: flops=142955521 bytes=17793028 intensity=8.0344 sfu=65536
func.func @blog(%x: tensor<32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %loss = sigreg.loss %x seed(%seed) slices = 1024 points = 17 t_max = 3.0
      : tensor<32x2048xbf16> -> tensor<f32>
  return %loss : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Views and a ragged batch: V = 3, N = 100, D = 96, S = 40, P = 9, f16,
// reduction = sum. B = VN = 300; after the GEMM the seed's S is VS = 120.
//
// Naive (per-type):
//   projection_generation  FLOPs 40 * 289 = 11560; bytes 3 * 96 * 40 * 4 = 46080
//   projection_gemm        FLOPs 2 * 300 * 96 * 40 = 2304000
//                          bytes 300*96*2 + 96*40*4 + 300*40*4 = 120960
//   trig_reduction         BSP = 108000, VSP = 1080
//                          FLOPs 3 * 108000 + 2 * 1080 = 326160
//                          bytes (6 * 108000 + 12000 + 9 + 2160) * 4 = 2648676
//   epilogue               FLOPs 6 * 1080 + 120 + 120 (sum: no division) = 6720
//                          bytes (4 * 1080 + 2 * 9 + 120 + 121) * 4 = 18316
//
// Fused: 300 = 3 views x 100 rows; SIMT (3*2*1 blocks), 64 rows per block,
// T = 2 batch tiles: the partials [2, 3, 40, 9] are written and read back,
// so the ECF writes (4T + 2) VSP = 10 * 1080 f32 = 43200 bytes (an estimate
// from the tile choice). Chunks: ceil(96 / 16) = 6 (16 rows, the fewest).
//   projection_generation  FLOPs 2 * 96 * 40 = 7680; bytes (3840 + 240) * 4 = 16320
//   projection_gemm        FLOPs 2304000 + 240 + 40 + 12000 = 2316280
//                          bytes 300*96*2 + 16320 = 73920
//   trig_reduction         FLOPs 12000 * (1 + 48 + 18) + 2160 = 806160
//   epilogue               FLOPs 6720; bytes (2 * 1080 + 1) * 4 = 8644
// With block-rows=16 (T = 7: (4*7 + 2) * 1080 * 4 = 129600 bytes) and
// projection-chunk=3, rounded up to 4 (one Philox call makes 4 rows): 24
// chunks, g + sums (3840 + 960) * 4 = 19200 bytes; the GEMM's seeded
// normalization adds CS = 960 FLOPs (2304000 + 960 + 40 + 12000 = 2317000)
// and reads 57600 + 19200 = 76800 bytes.
//===----------------------------------------------------------------------===//

// ATTR-LABEL:  remark: roofline: @views_ragged path=fused
// ATTR:        remark: projection_generation: flops=7680 bytes=16320 intensity=0.4706
// ATTR:        remark: trig_reduction: flops=806160 bytes=129600 intensity=6.2204 sfu=24000

// NAIVE-LABEL: remark: roofline: @views_ragged path=naive
// NAIVE:       remark: projection_generation: flops=11560 bytes=46080 intensity=0.2509
// NAIVE:       remark: projection_gemm: flops=2304000 bytes=120960 intensity=19.0476
// NAIVE:       remark: trig_reduction: flops=326160 bytes=2648676 intensity=0.1231 sfu=216000
// NAIVE:       remark: epilogue: flops=6720 bytes=18316 intensity=0.3669
// NAIVE:       remark: total: flops=2648440 bytes=2834032 intensity=0.9345 sfu=216000

// FUSED-LABEL: remark: roofline: @views_ragged path=fused
// FUSED:       remark: projection_generation: flops=7680 bytes=16320 intensity=0.4706
// FUSED:       remark: projection_gemm: flops=2316280 bytes=73920 intensity=31.3350
// FUSED:       remark: trig_reduction: flops=806160 bytes=43200 intensity=18.6611 sfu=24000
// FUSED:       remark: epilogue: flops=6720 bytes=8644 intensity=0.7774
// FUSED:       remark: total: flops=3136840 bytes=142084 intensity=22.0774 sfu=24000

// SCHED-LABEL: remark: roofline: @views_ragged path=fused
// SCHED:       remark: projection_generation: flops=7680 bytes=19200 intensity=0.4000
// SCHED:       remark: projection_gemm: flops=2317000 bytes=76800 intensity=30.1693
// SCHED:       remark: trig_reduction: flops=806160 bytes=129600 intensity=6.2204 sfu=24000
func.func @views_ragged(%x: tensor<3x100x96xf16>, %seed: i64) -> tensor<f32> {
  %loss = sigreg.loss %x seed(%seed) slices = 40 points = 9 reduction = sum
      : tensor<3x100x96xf16> -> tensor<f32>
  return %loss : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Explicit bf16 projection (no projection_generation), V = 2, N = 50, D = 64,
// S = 24, P = 5, reduction = none (no final reduction; the epilogue writes
// the [2, 24] statistics).
//   naive  gemm bytes 100*64*2 + 64*24*2 + 100*24*4 = 25472
//   fused  gemm bytes 100*64*2 + 64*24*2 = 15872; ECF writes 2 * 240 * 4 =
//          1920; epilogue FLOPs 6 * 240 + 48 = 1488, bytes (480 + 48) * 4 = 2112
//===----------------------------------------------------------------------===//

// NAIVE-LABEL: remark: roofline: @explicit path=naive
// NAIVE:       remark: projection_generation: flops=0 bytes=0 intensity=n/a
// NAIVE:       remark: projection_gemm: flops=307200 bytes=25472 intensity=12.0603
// NAIVE:       remark: trig_reduction: flops=36480 bytes=299540 intensity=0.1218 sfu=24000
// NAIVE:       remark: epilogue: flops=1488 bytes=4072 intensity=0.3654
// NAIVE:       remark: total: flops=345168 bytes=329084 intensity=1.0489 sfu=24000

// FUSED-LABEL: remark: roofline: @explicit path=fused
// FUSED:       remark: projection_generation: flops=0 bytes=0 intensity=n/a
// FUSED:       remark: projection_gemm: flops=307200 bytes=15872 intensity=19.3548
// FUSED:       remark: trig_reduction: flops=84480 bytes=1920 intensity=44.0000 sfu=4800
// FUSED:       remark: epilogue: flops=1488 bytes=2112 intensity=0.7045
// FUSED:       remark: total: flops=393168 bytes=19904 intensity=19.7532 sfu=4800
func.func @explicit(%x: tensor<2x50x64xbf16>, %a: tensor<64x24xbf16>) -> tensor<2x24xf32> {
  %stats = sigreg.loss %x projection(%a : tensor<64x24xbf16>) slices = 24
      points = 5 reduction = none : tensor<2x50x64xbf16> -> tensor<2x24xf32>
  return %stats : tensor<2x24xf32>
}

//===----------------------------------------------------------------------===//
// Tensor-core schedule: N = 1024, S = 1024 (16 * 8 = 128 >= 66 blocks), bf16,
// odd D = 63: 64-row tiles (T = 16, ECF writes (4*16 + 2) * 17408 * 4 =
// 4595712 bytes) and g as packed 16-bit words. The loss is a mean over the
// slices, so the projection is not split (--convert-sigreg-to-gpu writes and
// the MMA kernel reads the hi words only, ceil(63/2) * 1024 = 32768 of them;
// a reduction = none loss would add as many lo words).
// Default chunk: 16 rows (the fewest; 64 would give one generator block):
//   4 chunks; g + sums (32768 + 4096) * 4 = 147456 bytes, intensity
//   129024 / 147456 = 0.8750; the GEMM (FLOPs 2BDS + 4S + S + BS =
//   133174272) reads 1024*63*2 + 147456 = 276480 bytes, 481.6778.
// projection-chunk=3 is rounded up to 4 (whole Philox row groups): 16 chunks,
//   (32768 + 16384) * 4 = 196608 bytes, 129024 / 196608 = 0.65625 (printed
//   0.6562); the GEMM reads 129024 + 196608 = 325632 bytes,
//   133186560 / 325632 = 409.0094.
//===----------------------------------------------------------------------===//

// FUSED-LABEL: remark: roofline: @tensor_cores path=fused
// FUSED:       remark: projection_generation: flops=129024 bytes=147456 intensity=0.8750
// FUSED:       remark: projection_gemm: flops=133174272 bytes=276480 intensity=481.6778
// FUSED:       remark: trig_reduction: flops=137398272 bytes=4595712 intensity=29.8971 sfu=2097152

// SCHED-LABEL: remark: roofline: @tensor_cores path=fused
// SCHED:       remark: projection_generation: flops=129024 bytes=196608 intensity=0.6562
// SCHED:       remark: projection_gemm: flops=133186560 bytes=325632 intensity=409.0094
// SCHED:       remark: trig_reduction: flops=137398272 bytes=4595712 intensity=29.8971 sfu=2097152
func.func @tensor_cores(%x: tensor<1024x63xbf16>, %seed: i64) -> tensor<f32> {
  %loss = sigreg.loss %x seed(%seed) slices = 1024 points = 17
      : tensor<1024x63xbf16> -> tensor<f32>
  return %loss : tensor<f32>
}

// The same shape with reduction = none: per-slice statistics need the split,
// so g is written and read as hi and lo words, 2 * 32768 of them: g + sums
// (65536 + 4096) * 4 = 278528 bytes, 129024 / 278528 = 0.4632; the GEMM
// reads 129024 + 278528 = 407552 bytes, 133174272 / 407552 = 326.7663.
// FUSED-LABEL: remark: roofline: @tensor_cores_split path=fused
// FUSED:       remark: projection_generation: flops=129024 bytes=278528 intensity=0.4632
// FUSED:       remark: projection_gemm: flops=133174272 bytes=407552 intensity=326.7663
func.func @tensor_cores_split(%x: tensor<1024x63xbf16>, %seed: i64) -> tensor<1024xf32> {
  %stats = sigreg.loss %x seed(%seed) slices = 1024 points = 17
      reduction = none : tensor<1024x63xbf16> -> tensor<1024xf32>
  return %stats : tensor<1024xf32>
}

//===----------------------------------------------------------------------===//
// Dynamic batch: nothing is reported unless batch=N gives its size.
//===----------------------------------------------------------------------===//

// SEED:        remark: roofline: dynamic batch size; pass batch=N to evaluate it

// NAIVE-LABEL: remark: roofline: @dynamic path=naive
// NAIVE:       remark: projection_gemm: flops=294912 bytes=36864 intensity=8.0000
// NAIVE:       remark: total: flops=386913 bytes=720080 intensity=0.5373 sfu=52224

// FUSED-LABEL: remark: roofline: @dynamic path=fused
// FUSED:       remark: total: flops=508449 bytes=53252 intensity=9.5480 sfu=3072
func.func @dynamic(%x: tensor<?x96xf32>, %seed: i64) -> tensor<f32> {
  %loss = sigreg.loss %x seed(%seed) slices = 32 points = 17
      : tensor<?x96xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Mid-level ops written by hand, world_size = 2: the all-reduce (2VSP FLOPs,
// 2VSP * 4 bytes) is reported apart and not in the total.
//===----------------------------------------------------------------------===//

// NAIVE-LABEL: remark: roofline: @distributed path=naive
// NAIVE:       remark: total: flops=1805 bytes=6504 intensity=0.2775 sfu=384
// NAIVE-NEXT:  func.func @distributed
// NAIVE-NEXT:  ^
// NAIVE-NEXT:  remark: all_reduce (outside the total): flops=24 bytes=96 intensity=0.2500
func.func @distributed(%x: tensor<1x16x8xf32>, %seed: i64) -> tensor<f32> {
  %a = sigreg.projection seed(%seed) : tensor<8x4xf32>
  %y = sigreg.project %x, %a : tensor<1x16x8xf32>, tensor<8x4xf32> -> tensor<1x16x4xf32>
  %c, %s = sigreg.ecf %y : tensor<1x16x4xf32> -> tensor<1x4x3xf32>
  %n = arith.constant 16 : index
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n world_size = 2 : tensor<1x4x3xf32>
  %t = sigreg.epps_pulley %cg, %sg, %ng : tensor<1x4x3xf32> -> tensor<1x4xf32>
  %l = sigreg.reduce %t : tensor<1x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Before --sigreg-decompose the loss is not analyzed.
// LOSS: remark: roofline: sigreg.loss is not analyzed, run --sigreg-decompose first

// The JSON report of the fused run.
// JSON:      "element_bytes": 0,
// JSON:      "function": "blog",
// JSON-NEXT: "path": "fused",
// JSON-NEXT: "regions": {
// JSON-NEXT:   "projection_generation": {
// JSON-NEXT:     "flops": 4194304,
// JSON-NEXT:     "bytes": 8691712,
// JSON-NEXT:     "intensity": 0.48256361922714
// JSON-NEXT:     "sfu": 0
// JSON:        "projection_gemm": {
// JSON-NEXT:     "flops": 134327296,
// JSON:        "total": {
// JSON-NEXT:     "flops": 142955521,
// JSON-NEXT:     "bytes": 17793028,
// JSON:      "function": "explicit",
// JSON:        "projection_generation": {
// JSON-NEXT:     "flops": 0,
// JSON-NEXT:     "bytes": 0,
// JSON-NEXT:     "intensity": null,

// N = 8192, D = 64, S = 4096, P = 17: 32 batch tiles of 256 rows, 32 slice
// tiles of 128. C = S P = 69632 sums of each kind. The transposed tile writes
// 2 T C tile sums and the finalize reads them (T = 32): (4 T + 2) C f32 =
// 36208640 bytes; made persistent, T is its 4 groups (min(32, 132 / 32)):
// (4 x 4 + 2) C f32 = 5013504 bytes.
// TRANS-LABEL: remark: roofline: @hopper_sums path=fused
// TRANS:       remark: trig_reduction: flops={{[0-9]+}} bytes=36208640
// TPERS-LABEL: remark: roofline: @hopper_sums path=fused
// TPERS:       remark: trig_reduction: flops={{[0-9]+}} bytes=5013504
func.func @hopper_sums(%x: tensor<8192x64xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x64xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
