//===- SigregOps.td - sigreg dialect ops ------------------*- tablegen -*-===//

#ifndef SIGREG_DIALECT_SIGREG_IR_SIGREGOPS_TD
#define SIGREG_DIALECT_SIGREG_IR_SIGREGOPS_TD

include "sigreg/Dialect/Sigreg/IR/SigregDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Sigreg_ClipMode : I32EnumAttr<"ClipMode", "how the per-slice statistic is clipped", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"zero_below", 1>,
    I32EnumAttrCase<"clamp_min", 2>
  ]> {
  let cppNamespace = "::mlir::sigreg";
}

def Sigreg_Reduction : I32EnumAttr<"Reduction", "reduction over views and slices", [
    I32EnumAttrCase<"mean", 0>,
    I32EnumAttrCase<"sum", 1>,
    I32EnumAttrCase<"none", 2>
  ]> {
  let cppNamespace = "::mlir::sigreg";
}

def Sigreg_KernelKind : I32EnumAttr<"KernelKind", "the kernel of a fused ECF schedule", [
    I32EnumAttrCase<"simt", 0>,
    I32EnumAttrCase<"mma", 1>,
    I32EnumAttrCase<"wgmma", 2>,
    I32EnumAttrCase<"wgmma_persistent", 3>,
    I32EnumAttrCase<"single_launch", 4>
  ]> {
  let cppNamespace = "::mlir::sigreg";
}

def Sigreg_ProjectionMode : I32EnumAttr<"ProjectionMode",
    "how a fused ECF kernel reads its projection", [
    I32EnumAttrCase<"explicit_", 0, "explicit">,
    I32EnumAttrCase<"f32", 1>,
    I32EnumAttrCase<"split", 2>,
    I32EnumAttrCase<"rounded", 3>
  ]> {
  let cppNamespace = "::mlir::sigreg";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Sigreg_ScheduleAttr : AttrDef<Sigreg_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "the GPU schedule of a sigreg.fused_ecf";
  let description = [{
    Every decision --convert-sigreg-to-gpu makes for one `sigreg.fused_ecf`
    (docs/GPU-SCHEDULES.md): `--sigreg-choose-schedule` attaches it, or a
    user writes it by hand to try a schedule; the op verifier rejects
    schedules the kernels cannot run (verifySchedule in EcfSchedule.cpp).

    - `kernel`: `simt` (sigreg_fused_ecf), `mma` (mma.sync,
      sigreg_fused_ecf_mma), `wgmma` (TMA + wgmma, sigreg_fused_ecf_wgmma),
      `wgmma_persistent` (tile [128, 128]: the ping-pong kernel,
      sigreg_fused_ecf_wgmma_persistent; tile [256, 128]: the transposed
      tile made persistent, sigreg_fused_ecf_wgmma_transposed walking the
      batch tiles of one slice tile per CTA) or
      `single_launch` (the whole forward chain in one launch,
      sigreg_single_launch).
    - `tile = [rows, slices]`: batch rows x slices per block (CTA).
    - `k_tile`: SIMT kernel: depth of the staged feature tile (16 for the
      other kernels).
    - `batch_tiles`: ceil(N / rows); more than one adds per-tile partials
      and a finalize step.
    - `projection`: `explicit` (a projection operand), or how a seeded
      `sigreg.projection` is read: `f32`, `split` (16-bit hi + lo parts) or
      `rounded` (16 bits).
    - `cluster` (kernel = wgmma; printed when not 1): CTAs per thread block
      cluster along the batch tiles, 1, 2 or 4; the CTAs of a cluster share
      their g tile, each loading an equal share of its boxes by TMA
      multicast.

    ```mlir
    #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16,
                     batch_tiles = 64, projection = rounded>
    ```
  }];
  let parameters = (ins
    EnumParameter<Sigreg_KernelKind>:$kernel,
    "int64_t":$rows,
    "int64_t":$slices,
    "int64_t":$k_tile,
    "int64_t":$batch_tiles,
    EnumParameter<Sigreg_ProjectionMode>:$projection,
    DefaultValuedParameter<"int64_t", "1">:$cluster
  );
  let assemblyFormat = [{
    `<` `kernel` `=` $kernel `,` `tile` `=` `[` $rows `,` $slices `]` `,`
    `k_tile` `=` $k_tile `,` `batch_tiles` `=` $batch_tiles `,`
    `projection` `=` $projection (`,` `cluster` `=` $cluster^)? `>`
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Sigreg_InputElement : AnyTypeOf<[BF16, F16, F32]>;
def Sigreg_InputTensor : RankedTensorOf<[BF16, F16, F32]>;
def Sigreg_F32Tensor : RankedTensorOf<[F32]>;
// The saved slices of a fused forward: y in f32, or its phase in i16.
def Sigreg_SlicesTensor : RankedTensorOf<[F32, I16]>;

//===----------------------------------------------------------------------===//
// High level
//===----------------------------------------------------------------------===//

def Sigreg_LossOp : Sigreg_Op<"loss", [Pure, AttrSizedOperandSegments]> {
  let summary = "the SIGReg loss of a batch of embeddings";
  let description = [{
    Computes docs/CONTRACT.md section 1 on `input` of shape `[N, D]` or
    `[V, N, D]` (V views; N may be dynamic). The projection `A[D, S]` is
    either generated from the i64 `seed` (Philox4x32-10 + Box-Muller,
    docs/PROJECTION.md) or passed explicitly as `projection`. Integration points
    `t_p = p * t_max / (P - 1)`, `P = points` odd and >= 3. The result is a
    0-d f32 tensor for `reduction = mean | sum`, and the per-slice
    statistics (`[S]` or `[V, S]`) for `reduction = none`.

    Example:

    ```mlir
    %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17
           clip = clamp_min(5.0e-01) : tensor<?x2048xbf16> -> tensor<f32>
    ```
  }];
  let arguments = (ins
    Sigreg_InputTensor:$input,
    Optional<I64>:$seed,
    Optional<Sigreg_InputTensor>:$projection,
    I64Attr:$num_slices,
    DefaultValuedAttr<I64Attr, "17">:$num_points,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max,
    DefaultValuedAttr<Sigreg_ClipMode, "::mlir::sigreg::ClipMode::none">:$clip,
    DefaultValuedAttr<F64Attr, "0.0">:$clip_value,
    DefaultValuedAttr<Sigreg_Reduction, "::mlir::sigreg::Reduction::mean">:$reduction
  );
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $input (`seed` `(` $seed^ `)`)?
    (`projection` `(` $projection^ `:` type($projection) `)`)?
    `slices` `=` $num_slices
    (`points` `=` $num_points^)?
    (`t_max` `=` $t_max^)?
    (`clip` `=` $clip^ `(` $clip_value `)`)?
    (`reduction` `=` $reduction^)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when the input has a leading view dimension ([V, N, D]).
    bool hasViews() { return getInput().getType().getRank() == 3; }
  }];
}

def Sigreg_LossGradOp : Sigreg_Op<"loss_grad", [Pure, AttrSizedOperandSegments]> {
  let summary = "the gradient of the SIGReg loss with respect to the embeddings";
  let description = [{
    `dL/dx` of the `sigreg.loss` with the same operands and attributes, times
    the upstream gradient `grad` (the cotangent of the loss: a 0-d tensor for
    `reduction = mean | sum`, `[S]` or `[V, S]` for `reduction = none`), by
    the formula of docs/CONTRACT.md section 2: the clip gate is 0 where
    clipping replaced the statistic. The result has the input's shape, in
    f32 whatever the input type.

    Example:

    ```mlir
    %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024
            : tensor<?x2048xbf16> -> tensor<?x2048xf32>
    ```
  }];
  let arguments = (ins
    Sigreg_InputTensor:$input,
    Optional<I64>:$seed,
    Optional<Sigreg_InputTensor>:$projection,
    Sigreg_F32Tensor:$grad,
    I64Attr:$num_slices,
    DefaultValuedAttr<I64Attr, "17">:$num_points,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max,
    DefaultValuedAttr<Sigreg_ClipMode, "::mlir::sigreg::ClipMode::none">:$clip,
    DefaultValuedAttr<F64Attr, "0.0">:$clip_value,
    DefaultValuedAttr<Sigreg_Reduction, "::mlir::sigreg::Reduction::mean">:$reduction
  );
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $input (`seed` `(` $seed^ `)`)?
    (`projection` `(` $projection^ `:` type($projection) `)`)?
    `grad` `(` $grad `:` type($grad) `)`
    `slices` `=` $num_slices
    (`points` `=` $num_points^)?
    (`t_max` `=` $t_max^)?
    (`clip` `=` $clip^ `(` $clip_value `)`)?
    (`reduction` `=` $reduction^)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when the input has a leading view dimension ([V, N, D]).
    bool hasViews() { return getInput().getType().getRank() == 3; }
  }];
}

def Sigreg_AdvanceStepOp : Sigreg_Op<"advance_step"> {
  let summary = "reads a training step counter as a seed and advances it by one";
  let description = [{
    `%seed = sigreg.advance_step %step : memref<i64>` returns the value held in
    `step` and leaves `step + 1` there: LeJEPA's `global_step`, which seeds
    the projection of every call and advances with it. Seeding a
    `sigreg.loss` (or `sigreg.loss_grad`) with it keeps the counter in
    device memory: the kernels that generate the projection read it there
    and the forward advances it, so that a call replayed from a CUDA graph
    takes the next seed, with no host round trip and no launch of its own
    where a kernel of the forward has a last block (docs/AOT.md).

    ```mlir
    %seed = sigreg.advance_step %step : memref<i64>
    %l = sigreg.loss %x seed(%seed) slices = 1024 : tensor<32x2048xbf16> -> tensor<f32>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[I64], [0]>, "the step counter",
                           [MemRead, MemWrite]>:$step);
  let results = (outs I64:$seed);
  let assemblyFormat = "$step attr-dict `:` type($step)";
}

//===----------------------------------------------------------------------===//
// Mid level: the seed's regions. All operate on [V, N, D] inputs.
//===----------------------------------------------------------------------===//

def Sigreg_ProjectionOp : Sigreg_Op<"projection", [Pure]> {
  let summary = "random projection A[D, S] with unit-norm columns from a seed";
  let description = [{
    `A[d, s] = g[d, s] / ||g[:, s]||` where `g[d, s]` is the Philox4x32-10 +
    Box-Muller sample for `(seed, d, s)` (docs/PROJECTION.md).
  }];
  let arguments = (ins I64:$seed);
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = "`seed` `(` $seed `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Sigreg_ProjectOp : Sigreg_Op<"project", [Pure]> {
  let summary = "the projection GEMM: y[v, n, s] = sum_d x[v, n, d] A[d, s]";
  let arguments = (ins Sigreg_InputTensor:$input, Sigreg_InputTensor:$projection);
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $projection attr-dict `:` type($input) `,` type($projection)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Sigreg_EcfOp : Sigreg_Op<"ecf", [Pure, AllTypesMatch<["cos", "sin"]>]> {
  let summary = "empirical characteristic function averaged over the local batch";
  let description = [{
    `cos[v, s, p] = (1/N) sum_n cos(t_p y[v, n, s])` and likewise `sin`, with
    `t_p = p * t_max / (points - 1)`. The batch mean is local to this rank.
  }];
  let arguments = (ins
    Sigreg_F32Tensor:$slices,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max
  );
  let results = (outs Sigreg_F32Tensor:$cos, Sigreg_F32Tensor:$sin);
  let assemblyFormat = [{
    $slices (`t_max` `=` $t_max^)? attr-dict `:` type($slices) `->` type($cos)
  }];
  let hasVerifier = 1;
}

def Sigreg_AllReduceMeanOp : Sigreg_Op<"all_reduce_mean",
    [AllTypesMatch<["cos", "sin", "cos_global", "sin_global"]>]> {
  let summary = "average the ECF over ranks: the distributed synchronization boundary";
  let description = [{
    Averages `cos` and `sin` over `world_size` ranks and returns the global
    batch size `local_count * world_size`. With one rank it is the identity.
    Nothing is ever fused across this op: it has side effects (communication)
    so no pass may move computation through it.
  }];
  let arguments = (ins
    Sigreg_F32Tensor:$cos, Sigreg_F32Tensor:$sin, Index:$local_count,
    DefaultValuedAttr<I64Attr, "1">:$world_size
  );
  let results = (outs Sigreg_F32Tensor:$cos_global, Sigreg_F32Tensor:$sin_global,
                      Index:$global_count);
  let assemblyFormat = [{
    $cos `,` $sin `,` $local_count (`world_size` `=` $world_size^)? attr-dict
    `:` type($cos)
  }];
  let hasVerifier = 1;
}

def Sigreg_EppsPulleyOp : Sigreg_Op<"epps_pulley", [Pure, AllTypesMatch<["cos", "sin"]>]> {
  let summary = "per-slice Epps-Pulley statistic with optional clipping";
  let description = [{
    `T[v, s] = global_count * sum_p w_p ((cos[v, s, p] - phi_p)^2 + sin[v, s, p]^2)`
    with trapezoid weights on [0, t_max] doubled for symmetry, then clipped.
  }];
  let arguments = (ins
    Sigreg_F32Tensor:$cos, Sigreg_F32Tensor:$sin, Index:$global_count,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max,
    DefaultValuedAttr<Sigreg_ClipMode, "::mlir::sigreg::ClipMode::none">:$clip,
    DefaultValuedAttr<F64Attr, "0.0">:$clip_value
  );
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $cos `,` $sin `,` $global_count (`t_max` `=` $t_max^)?
    (`clip` `=` $clip^ `(` $clip_value `)`)? attr-dict
    `:` type($cos) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Sigreg_ReduceOp : Sigreg_Op<"reduce", [Pure]> {
  let summary = "final reduction of the statistics over views and slices";
  let arguments = (ins
    Sigreg_F32Tensor:$statistics,
    DefaultValuedAttr<Sigreg_Reduction, "::mlir::sigreg::Reduction::mean">:$reduction
  );
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $statistics (`reduction` `=` $reduction^)? attr-dict `:` type($statistics)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Mid level, backward: the regions of the gradient (docs/CONTRACT.md
// section 2), in reverse order.
//===----------------------------------------------------------------------===//

def Sigreg_EcfCotangentOp : Sigreg_Op<"ecf_cotangent",
    [Pure, AllTypesMatch<["cos", "sin", "dcos", "dsin"]>]> {
  let summary = "backward of epps_pulley + reduce: dL/dcos and dL/dsin";
  let description = [{
    From the global ECF `cos`, `sin` `[V, S, P]`, the global batch size and
    the loss's cotangent `grad` (0-d for `reduction = mean | sum`, `[V, S]`
    for `none`): with `T` the unclipped statistic, the gate `g = 1` unless
    clipping replaced `T` (`T < clip_value`), and `r` the reduction's factor
    (`grad / (V S)`, `grad`, or `grad[v, s]`),
    `dcos[v, s, p] = r g global_count 2 w_p (cos[v, s, p] - phi_p)` and
    `dsin[v, s, p] = r g global_count 2 w_p sin[v, s, p]`.
  }];
  let arguments = (ins
    Sigreg_F32Tensor:$cos, Sigreg_F32Tensor:$sin, Index:$global_count,
    Sigreg_F32Tensor:$grad,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max,
    DefaultValuedAttr<Sigreg_ClipMode, "::mlir::sigreg::ClipMode::none">:$clip,
    DefaultValuedAttr<F64Attr, "0.0">:$clip_value,
    DefaultValuedAttr<Sigreg_Reduction, "::mlir::sigreg::Reduction::mean">:$reduction
  );
  let results = (outs Sigreg_F32Tensor:$dcos, Sigreg_F32Tensor:$dsin);
  let assemblyFormat = [{
    $cos `,` $sin `,` $global_count `,` $grad (`t_max` `=` $t_max^)?
    (`clip` `=` $clip^ `(` $clip_value `)`)? (`reduction` `=` $reduction^)?
    attr-dict `:` type($cos) `,` type($grad)
  }];
  let hasVerifier = 1;
}

def Sigreg_EcfGradOp : Sigreg_Op<"ecf_grad",
    [Pure, AllTypesMatch<["dcos", "dsin"]>, AllTypesMatch<["slices", "result"]>]> {
  let summary = "backward of the local ECF: dL/dy";
  let description = [{
    `result[v, n, s] = (1/N) sum_p t_p (dsin[v, s, p] cos(t_p y[v, n, s])
    - dcos[v, s, p] sin(t_p y[v, n, s]))` with `y = slices` `[V, N, S]` and
    N its local batch size: the cotangent of `sigreg.ecf` given those of its
    results.
  }];
  let arguments = (ins
    Sigreg_F32Tensor:$slices, Sigreg_F32Tensor:$dcos, Sigreg_F32Tensor:$dsin,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max
  );
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $slices `,` $dcos `,` $dsin (`t_max` `=` $t_max^)? attr-dict
    `:` type($slices) `,` type($dcos)
  }];
  let hasVerifier = 1;
}

def Sigreg_ProjectTransposeOp : Sigreg_Op<"project_transpose", [Pure]> {
  let summary = "backward of the projection GEMM: dx[v, n, d] = sum_s dy[v, n, s] A[d, s]";
  let arguments = (ins Sigreg_F32Tensor:$cotangent, Sigreg_InputTensor:$projection);
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $cotangent `,` $projection attr-dict `:` type($cotangent) `,` type($projection)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused ops (produced by the fusion passes)
//===----------------------------------------------------------------------===//

def Sigreg_FusedEcfOp : Sigreg_Op<"fused_ecf", [Pure, AllTypesMatch<["cos", "sin"]>]> {
  let summary = "projection GEMM + frequency projection + cos/sin + batch mean";
  let description = [{
    `sigreg.ecf(sigreg.project(input, projection))` as one op: neither the
    slices `y[V, N, S]` nor the `[V, N, S, P]` arguments, cosines and sines
    exist; lowerings keep y in registers and accumulate the cos/sin batch
    sums per tile. Produced by `--sigreg-fuse-ecf`. When `projection` is a
    `sigreg.projection`, the GPU lowering folds the column normalization
    after the GEMM (`x.a_s = (x.g_s) / ||g_s||`).

    The optional third result is the slices `y = input @ projection`
    `[V, N, S]`, for a `sigreg.fused_ecf_backward` that reads them instead
    of recomputing the GEMM (`--sigreg-save-slices`): y in f32, or (i16) the
    phase of its first angle, `q = round(65536 (dt y) / (2 pi))` wrapped to
    16 bits (`dt = t_max / (P - 1)`): every harmonic of the ECF and of its
    gradient is a function of `dt y` modulo `2 pi`, so the phase is all the
    backward needs, in half the bytes (`docs/BACKWARD.md`).
  }];
  let arguments = (ins
    Sigreg_InputTensor:$input, Sigreg_InputTensor:$projection,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max,
    OptionalAttr<Sigreg_ScheduleAttr>:$schedule
  );
  let results = (outs Sigreg_F32Tensor:$cos, Sigreg_F32Tensor:$sin,
                      Optional<Sigreg_SlicesTensor>:$slices);
  let assemblyFormat = [{
    $input `,` $projection (`t_max` `=` $t_max^)? attr-dict `:` type($input)
    `,` type($projection) `->` type($cos) (`,` `slices` type($slices)^)?
  }];
  let hasVerifier = 1;
}

def Sigreg_FusedEpilogueOp : Sigreg_Op<"fused_epilogue",
    [Pure, AllTypesMatch<["cos", "sin"]>]> {
  let summary = "squared error + weighted integration + clip + final reduction";
  let description = [{
    `sigreg.reduce(sigreg.epps_pulley(cos, sin, global_count))` as one op.
    Produced by `--sigreg-fuse-epilogue`; it starts after the
    `sigreg.all_reduce_mean` boundary.
  }];
  let arguments = (ins
    Sigreg_F32Tensor:$cos, Sigreg_F32Tensor:$sin, Index:$global_count,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max,
    DefaultValuedAttr<Sigreg_ClipMode, "::mlir::sigreg::ClipMode::none">:$clip,
    DefaultValuedAttr<F64Attr, "0.0">:$clip_value,
    DefaultValuedAttr<Sigreg_Reduction, "::mlir::sigreg::Reduction::mean">:$reduction
  );
  let results = (outs Sigreg_F32Tensor:$result);
  let assemblyFormat = [{
    $cos `,` $sin `,` $global_count (`t_max` `=` $t_max^)?
    (`clip` `=` $clip^ `(` $clip_value `)`)? (`reduction` `=` $reduction^)?
    attr-dict `:` type($cos) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Sigreg_FusedEcfBackwardOp : Sigreg_Op<"fused_ecf_backward",
    [Pure, AllTypesMatch<["dcos", "dsin"]>]> {
  let summary = "backward of the fused ECF: dL/dx from the cotangents of the ECF means";
  let description = [{
    `sigreg.project_transpose(sigreg.ecf_grad(sigreg.project(input,
    projection), dcos, dsin), projection)` as one op: `dL/dx[v, n, d] =
    sum_s dL/dy[v, n, s] A[d, s]` with `dL/dy` the `sigreg.ecf_grad` formula
    of the slices `y = input @ projection`. Neither the `[V, N, S, P]`
    arguments nor y need to exist: lowerings recompute y tile by tile and
    form `dL/dy` in registers. Produced by `--sigreg-fuse-ecf-backward`.

    With the optional `slices` operand (the forward's saved y, the third
    result of a `sigreg.fused_ecf` of the same input and projection, set by
    `--sigreg-save-slices`), `dL/dy` is formed from y (or its i16 phase)
    directly and only the `dL/dy A^T` GEMM remains.

    The result is f32, or the input's element type: dL/dx rounded to it
    (`--sigreg-fuse-ecf-backward` folds an `arith.truncf` of the result into
    the op, so that the GEMM stores the 16-bit values itself).
  }];
  let arguments = (ins
    Sigreg_InputTensor:$input, Sigreg_InputTensor:$projection,
    Sigreg_F32Tensor:$dcos, Sigreg_F32Tensor:$dsin,
    Optional<Sigreg_SlicesTensor>:$slices,
    DefaultValuedAttr<F64Attr, "3.0">:$t_max
  );
  let results = (outs Sigreg_InputTensor:$result);
  let assemblyFormat = [{
    $input `,` $projection `,` $dcos `,` $dsin (`slices` `(` $slices^ `:`
    type($slices) `)`)? (`t_max` `=` $t_max^)? attr-dict
    `:` type($input) `,` type($projection) `,` type($dcos) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // SIGREG_DIALECT_SIGREG_IR_SIGREGOPS_TD
