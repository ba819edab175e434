;; The cubature fit's hot loop in WebAssembly SIMD (f32x4): every vibration mode's strain at every pool point
;; (cubature-fit.ts, modeStrains). Single precision is what the fit's matrix keeps anyway. Every address is a byte
;; offset into the instance's memory (cubature-kernels.ts lays it out, 16-byte aligned).
;; `npm run build:kernels` compiles this file into cubature-wasm.ts; a test checks that the two agree.
;;
;; strains: for each point p and each group of four modes g, F[a][b] = sum_i U[mode, a, i] J_p[i, b], folded into
;; the symmetric strain [F_xx, F_yy, F_zz, sqrt 2 e_xy, sqrt 2 e_xz, sqrt 2 e_yz] (e = (F + F^T) / 2).
;;   modes: groups x m x 3 f32x4: (g, i, a) holds U[4g .. 4g + 3, a, i] (four modes, one lane each)
;;   jac:   points x m x 3 f32: J_p[i, b]
;;   out:   points x 6 x groups f32x4: (p, c, g) holds strain component c of modes 4g .. 4g + 3 at point p
;;
;; dots, normalise, columnDots and residual: the fit's columns (one a point, `length` f32 each, a multiple of four,
;; zero-padded) against a vector, scaled to unit length, against chosen columns, and the NNLS's residual.
(module
  (memory (export "memory") 1)
  (func (export "strains") (param $points i32) (param $m i32) (param $groups i32) (param $modes i32) (param $jac i32) (param $out i32)
    (local $p i32) (local $g i32) (local $jp i32) (local $jend i32) (local $up i32) (local $groupModes i32) (local $sp i32)
    (local $rowBytes i32) (local $stride i32) (local $pointBytes i32)
    (local $a00 v128) (local $a01 v128) (local $a02 v128)
    (local $a10 v128) (local $a11 v128) (local $a12 v128)
    (local $a20 v128) (local $a21 v128) (local $a22 v128)
    (local $j0 v128) (local $j1 v128) (local $j2 v128)
    (local $u0 v128) (local $u1 v128) (local $u2 v128)
    (local $half v128)
    (local.set $rowBytes (i32.mul (local.get $m) (i32.const 12)))
    (local.set $stride (i32.mul (local.get $groups) (i32.const 16)))
    (local.set $pointBytes (i32.mul (local.get $stride) (i32.const 6)))
    (local.set $half (f32x4.splat (f32.const 0.70710678118654752)))
    ;; Groups outside, points inside: one group's modes (m x 48 bytes) stay in the first-level cache while every
    ;; point's Jacobian streams past them.
    (local.set $groupModes (local.get $modes))
    (local.set $g (i32.const 0))
    (block $groupsDone
      (loop $group
        (br_if $groupsDone (i32.ge_u (local.get $g) (local.get $groups)))
        (local.set $jp (local.get $jac))
        ;; (p, c, g) at out + p pointBytes + c stride + 16 g
        (local.set $sp (i32.add (local.get $out) (i32.shl (local.get $g) (i32.const 4))))
        (local.set $p (i32.const 0))
        (block $pointsDone
          (loop $point
            (br_if $pointsDone (i32.ge_u (local.get $p) (local.get $points)))
            (local.set $a00 (v128.const i32x4 0 0 0 0)) (local.set $a01 (v128.const i32x4 0 0 0 0)) (local.set $a02 (v128.const i32x4 0 0 0 0))
            (local.set $a10 (v128.const i32x4 0 0 0 0)) (local.set $a11 (v128.const i32x4 0 0 0 0)) (local.set $a12 (v128.const i32x4 0 0 0 0))
            (local.set $a20 (v128.const i32x4 0 0 0 0)) (local.set $a21 (v128.const i32x4 0 0 0 0)) (local.set $a22 (v128.const i32x4 0 0 0 0))
            (local.set $up (local.get $groupModes))
            (local.set $jend (i32.add (local.get $jp) (local.get $rowBytes)))
            (block $basisDone
              (loop $basis
                (br_if $basisDone (i32.ge_u (local.get $jp) (local.get $jend)))
                (local.set $j0 (v128.load32_splat (local.get $jp)))
                (local.set $j1 (v128.load32_splat offset=4 (local.get $jp)))
                (local.set $j2 (v128.load32_splat offset=8 (local.get $jp)))
                (local.set $u0 (v128.load (local.get $up)))
                (local.set $u1 (v128.load offset=16 (local.get $up)))
                (local.set $u2 (v128.load offset=32 (local.get $up)))
                (local.set $a00 (f32x4.add (local.get $a00) (f32x4.mul (local.get $u0) (local.get $j0))))
                (local.set $a01 (f32x4.add (local.get $a01) (f32x4.mul (local.get $u0) (local.get $j1))))
                (local.set $a02 (f32x4.add (local.get $a02) (f32x4.mul (local.get $u0) (local.get $j2))))
                (local.set $a10 (f32x4.add (local.get $a10) (f32x4.mul (local.get $u1) (local.get $j0))))
                (local.set $a11 (f32x4.add (local.get $a11) (f32x4.mul (local.get $u1) (local.get $j1))))
                (local.set $a12 (f32x4.add (local.get $a12) (f32x4.mul (local.get $u1) (local.get $j2))))
                (local.set $a20 (f32x4.add (local.get $a20) (f32x4.mul (local.get $u2) (local.get $j0))))
                (local.set $a21 (f32x4.add (local.get $a21) (f32x4.mul (local.get $u2) (local.get $j1))))
                (local.set $a22 (f32x4.add (local.get $a22) (f32x4.mul (local.get $u2) (local.get $j2))))
                (local.set $jp (i32.add (local.get $jp) (i32.const 12)))
                (local.set $up (i32.add (local.get $up) (i32.const 48)))
                (br $basis)))
            (v128.store (local.get $sp) (local.get $a00))
            (v128.store (i32.add (local.get $sp) (local.get $stride)) (local.get $a11))
            (v128.store (i32.add (local.get $sp) (i32.shl (local.get $stride) (i32.const 1))) (local.get $a22))
            (v128.store (i32.add (local.get $sp) (i32.mul (local.get $stride) (i32.const 3))) (f32x4.mul (local.get $half) (f32x4.add (local.get $a01) (local.get $a10))))
            (v128.store (i32.add (local.get $sp) (i32.shl (local.get $stride) (i32.const 2))) (f32x4.mul (local.get $half) (f32x4.add (local.get $a02) (local.get $a20))))
            (v128.store (i32.add (local.get $sp) (i32.mul (local.get $stride) (i32.const 5))) (f32x4.mul (local.get $half) (f32x4.add (local.get $a12) (local.get $a21))))
            (local.set $sp (i32.add (local.get $sp) (local.get $pointBytes)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $point)))
        (local.set $groupModes (local.get $up))
        (local.set $g (i32.add (local.get $g) (i32.const 1)))
        (br $group)))
  )
  ;; out[k] = column (first + k step) . v for k < count; a column is `length` f32 from a + column * 4 length.
  ;; Four columns at a time, each with its own running sum: every column's additions are the ones a column alone
  ;; would make, in the same order, but four chains of dependent additions overlap instead of one waiting on itself.
  (func (export "dots") (param $a i32) (param $length i32) (param $first i32) (param $step i32) (param $count i32) (param $v i32) (param $out i32)
    (local $k i32) (local $c0 i32) (local $stepBytes i32) (local $o i32) (local $columnBytes i32) (local $x v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local.set $columnBytes (i32.shl (local.get $length) (i32.const 2)))
    (local.set $stepBytes (i32.mul (local.get $step) (local.get $columnBytes)))
    (local.set $k (i32.const 0))
    (block $fours
      (loop $four
        (br_if $fours (i32.gt_u (i32.add (local.get $k) (i32.const 4)) (local.get $count)))
        (local.set $c0 (i32.add (local.get $a) (i32.mul (i32.add (local.get $first) (i32.mul (local.get $k) (local.get $step))) (local.get $columnBytes))))
        (local.set $s0 (v128.const i32x4 0 0 0 0)) (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0)) (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $o (i32.const 0))
        (block $summed
          (loop $entry
            (br_if $summed (i32.ge_u (local.get $o) (local.get $columnBytes)))
            (local.set $x (v128.load (i32.add (local.get $v) (local.get $o))))
            (local.set $s0 (f32x4.add (local.get $s0) (f32x4.mul (v128.load (i32.add (local.get $c0) (local.get $o))) (local.get $x))))
            (local.set $s1 (f32x4.add (local.get $s1) (f32x4.mul (v128.load (i32.add (i32.add (local.get $c0) (local.get $stepBytes)) (local.get $o))) (local.get $x))))
            (local.set $s2 (f32x4.add (local.get $s2) (f32x4.mul (v128.load (i32.add (i32.add (local.get $c0) (i32.shl (local.get $stepBytes) (i32.const 1))) (local.get $o))) (local.get $x))))
            (local.set $s3 (f32x4.add (local.get $s3) (f32x4.mul (v128.load (i32.add (i32.add (local.get $c0) (i32.mul (local.get $stepBytes) (i32.const 3))) (local.get $o))) (local.get $x))))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (br $entry)))
        (call $storeSum (local.get $out) (local.get $k) (local.get $s0))
        (call $storeSum (local.get $out) (i32.add (local.get $k) (i32.const 1)) (local.get $s1))
        (call $storeSum (local.get $out) (i32.add (local.get $k) (i32.const 2)) (local.get $s2))
        (call $storeSum (local.get $out) (i32.add (local.get $k) (i32.const 3)) (local.get $s3))
        (local.set $k (i32.add (local.get $k) (i32.const 4)))
        (br $four)))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $c0 (i32.add (local.get $a) (i32.mul (i32.add (local.get $first) (i32.mul (local.get $k) (local.get $step))) (local.get $columnBytes))))
        (call $storeSum (local.get $out) (local.get $k) (call $columnSum (local.get $c0) (local.get $v) (local.get $columnBytes)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $column))))
  ;; The four lanes' running sums of one column, folded as (l0 + l1) + (l2 + l3), stored at out[k].
  (func $storeSum (param $out i32) (param $k i32) (param $sum v128)
    (f32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
      (f32.add
        (f32.add (f32x4.extract_lane 0 (local.get $sum)) (f32x4.extract_lane 1 (local.get $sum)))
        (f32.add (f32x4.extract_lane 2 (local.get $sum)) (f32x4.extract_lane 3 (local.get $sum))))))
  ;; The lanes' running sums of column . v over `bytes` (one column alone).
  (func $columnSum (param $cp i32) (param $vp i32) (param $bytes i32) (result v128)
    (local $end i32) (local $sum v128)
    (local.set $end (i32.add (local.get $cp) (local.get $bytes)))
    (local.set $sum (v128.const i32x4 0 0 0 0))
    (block $summed
      (loop $entry
        (br_if $summed (i32.ge_u (local.get $cp) (local.get $end)))
        (local.set $sum (f32x4.add (local.get $sum) (f32x4.mul (v128.load (local.get $cp)) (v128.load (local.get $vp)))))
        (local.set $cp (i32.add (local.get $cp) (i32.const 16)))
        (local.set $vp (i32.add (local.get $vp) (i32.const 16)))
        (br $entry)))
    (local.get $sum))
;; Scales each of the `count` columns to unit length (a zero column stays zero); out[k] = its length before.
  (func (export "normalise") (param $a i32) (param $length i32) (param $count i32) (param $out i32)
    (local $k i32) (local $cp i32) (local $start i32) (local $end i32) (local $x v128) (local $sum v128) (local $norm f32) (local $scale v128)
    (local.set $start (local.get $a))
    (local.set $k (i32.const 0))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $end (i32.add (local.get $start) (i32.shl (local.get $length) (i32.const 2))))
        (local.set $sum (v128.const i32x4 0 0 0 0))
        (local.set $cp (local.get $start))
        (block $summed
          (loop $entry
            (br_if $summed (i32.ge_u (local.get $cp) (local.get $end)))
            (local.set $x (v128.load (local.get $cp)))
            (local.set $sum (f32x4.add (local.get $sum) (f32x4.mul (local.get $x) (local.get $x))))
            (local.set $cp (i32.add (local.get $cp) (i32.const 16)))
            (br $entry)))
        (local.set $norm (f32.sqrt
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $sum)) (f32x4.extract_lane 1 (local.get $sum)))
            (f32.add (f32x4.extract_lane 2 (local.get $sum)) (f32x4.extract_lane 3 (local.get $sum))))))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (local.get $norm))
        (if (f32.gt (local.get $norm) (f32.const 0))
          (then
            (local.set $scale (f32x4.splat (f32.div (f32.const 1) (local.get $norm))))
            (local.set $cp (local.get $start))
            (block $scaled
              (loop $entry
                (br_if $scaled (i32.ge_u (local.get $cp) (local.get $end)))
                (v128.store (local.get $cp) (f32x4.mul (v128.load (local.get $cp)) (local.get $scale)))
                (local.set $cp (i32.add (local.get $cp) (i32.const 16)))
                (br $entry)))))
        (local.set $start (local.get $end))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $column))))
  ;; out[k] = column (indices[k]) . column c for k < count (indices: i32); four columns at a time, as dots.
  (func (export "columnDots") (param $a i32) (param $length i32) (param $indices i32) (param $count i32) (param $c i32) (param $out i32)
    (local $k i32) (local $o i32) (local $columnBytes i32) (local $v i32) (local $x v128)
    (local $c0 i32) (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local.set $columnBytes (i32.shl (local.get $length) (i32.const 2)))
    (local.set $v (i32.add (local.get $a) (i32.mul (local.get $c) (local.get $columnBytes))))
    (local.set $k (i32.const 0))
    (block $fours
      (loop $four
        (br_if $fours (i32.gt_u (i32.add (local.get $k) (i32.const 4)) (local.get $count)))
        (local.set $c0 (call $listedColumn (local.get $a) (local.get $indices) (local.get $k) (local.get $columnBytes)))
        (local.set $c1 (call $listedColumn (local.get $a) (local.get $indices) (i32.add (local.get $k) (i32.const 1)) (local.get $columnBytes)))
        (local.set $c2 (call $listedColumn (local.get $a) (local.get $indices) (i32.add (local.get $k) (i32.const 2)) (local.get $columnBytes)))
        (local.set $c3 (call $listedColumn (local.get $a) (local.get $indices) (i32.add (local.get $k) (i32.const 3)) (local.get $columnBytes)))
        (local.set $s0 (v128.const i32x4 0 0 0 0)) (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0)) (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $o (i32.const 0))
        (block $summed
          (loop $entry
            (br_if $summed (i32.ge_u (local.get $o) (local.get $columnBytes)))
            (local.set $x (v128.load (i32.add (local.get $v) (local.get $o))))
            (local.set $s0 (f32x4.add (local.get $s0) (f32x4.mul (v128.load (i32.add (local.get $c0) (local.get $o))) (local.get $x))))
            (local.set $s1 (f32x4.add (local.get $s1) (f32x4.mul (v128.load (i32.add (local.get $c1) (local.get $o))) (local.get $x))))
            (local.set $s2 (f32x4.add (local.get $s2) (f32x4.mul (v128.load (i32.add (local.get $c2) (local.get $o))) (local.get $x))))
            (local.set $s3 (f32x4.add (local.get $s3) (f32x4.mul (v128.load (i32.add (local.get $c3) (local.get $o))) (local.get $x))))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (br $entry)))
        (call $storeSum (local.get $out) (local.get $k) (local.get $s0))
        (call $storeSum (local.get $out) (i32.add (local.get $k) (i32.const 1)) (local.get $s1))
        (call $storeSum (local.get $out) (i32.add (local.get $k) (i32.const 2)) (local.get $s2))
        (call $storeSum (local.get $out) (i32.add (local.get $k) (i32.const 3)) (local.get $s3))
        (local.set $k (i32.add (local.get $k) (i32.const 4)))
        (br $four)))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (call $storeSum (local.get $out) (local.get $k)
          (call $columnSum (call $listedColumn (local.get $a) (local.get $indices) (local.get $k) (local.get $columnBytes)) (local.get $v) (local.get $columnBytes)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $column))))
  ;; The address of column indices[k].
  (func $listedColumn (param $a i32) (param $indices i32) (param $k i32) (param $columnBytes i32) (result i32)
    (i32.add (local.get $a) (i32.mul (i32.load (i32.add (local.get $indices) (i32.shl (local.get $k) (i32.const 2)))) (local.get $columnBytes))))
  ;; out = b - sum_k weights[k] column (indices[k]), in double precision (b, weights, out: f64; indices: i32).
  (func (export "residual") (param $a i32) (param $length i32) (param $indices i32) (param $weights i32) (param $count i32) (param $b i32) (param $out i32)
    (local $k i32) (local $r i32) (local $cp i32) (local $op i32) (local $columnBytes i32) (local $w v128) (local $x v128)
    (local.set $columnBytes (i32.shl (local.get $length) (i32.const 2)))
    (memory.copy (local.get $out) (local.get $b) (i32.shl (local.get $length) (i32.const 3)))
    (local.set $k (i32.const 0))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $cp (i32.add (local.get $a) (i32.mul (i32.load (i32.add (local.get $indices) (i32.shl (local.get $k) (i32.const 2)))) (local.get $columnBytes))))
        (local.set $w (f64x2.splat (f64.load (i32.add (local.get $weights) (i32.shl (local.get $k) (i32.const 3))))))
        (local.set $op (local.get $out))
        (local.set $r (i32.const 0))
        (block $entries
          (loop $entry
            (br_if $entries (i32.ge_u (local.get $r) (local.get $length)))
            (local.set $x (v128.load (local.get $cp)))
            (v128.store (local.get $op) (f64x2.sub (v128.load (local.get $op)) (f64x2.mul (local.get $w) (f64x2.promote_low_f32x4 (local.get $x)))))
            (v128.store offset=16 (local.get $op) (f64x2.sub (v128.load offset=16 (local.get $op))
              (f64x2.mul (local.get $w) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x))))))
            (local.set $cp (i32.add (local.get $cp) (i32.const 16)))
            (local.set $op (i32.add (local.get $op) (i32.const 32)))
            (local.set $r (i32.add (local.get $r) (i32.const 4)))
            (br $entry)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $column))));; fitRows: the fit's matrix and target from the strains (cubature-fit.ts's fitRows, whose JS loop it is term by
;; term: the same products and sums in the same order, so the same bits). For each point c, mode i's strains s_i
;; (six, promoted to double) and trace t_i = (s_i0 + s_i1) + s_i2; for each matched pair r = (i, j) in fitRowPairs's
;; order (j from i to `paired` - 1 while i < paired, then j = i alone), shear = ((((s_i0 s_j0 + s_i1 s_j1) + ...) +
;; s_i5 s_j5) times shearScale[r] and volume = (t_i t_j) scale[r], stored as singles at column c's rows 2 r and 2 r + 1
;; and added to target (doubles); row `rows` - 1 gets `volumeScale`. Two pairs a lane pair where i's run of j allows.
;;   strains: points x 6 x width f32 (as `strains` leaves them); shearScale, scale: f64 by pair; trace: width f64 of
;;   scratch; target: f64 (zeroed here); matrix: points x columnLength f32.
  (func (export "fitRows") (param $points i32) (param $width i32) (param $used i32) (param $paired i32) (param $strains i32)
    (param $shearScale i32) (param $scale i32) (param $trace i32) (param $volumeScale f64) (param $rows i32) (param $columnLength i32)
    (param $target i32) (param $matrix i32)
    (local $c i32) (local $g i32) (local $o i32) (local $e i32) (local $i i32) (local $j i32) (local $last i32) (local $r i32)
    (local $stride i32) (local $si i32) (local $sj i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $a4 v128) (local $a5 v128) (local $ti v128)
    (local $shear v128) (local $volume v128) (local $rowPair v128) (local $tp i32)
    (local $x0 f64) (local $x1 f64) (local $x2 f64) (local $x3 f64) (local $x4 f64) (local $x5 f64) (local $xt f64)
    (local $shearOne f64) (local $volumeOne f64)
    (local.set $stride (i32.shl (local.get $width) (i32.const 2)))
    (memory.fill (local.get $target) (i32.const 0) (i32.shl (local.get $columnLength) (i32.const 3)))
    (local.set $c (i32.const 0))
    (block $pointsDone
      (loop $point
        (br_if $pointsDone (i32.ge_u (local.get $c) (local.get $points)))
        (local.set $g (i32.add (local.get $strains) (i32.mul (local.get $c) (i32.mul (local.get $stride) (i32.const 6)))))
        (local.set $o (i32.add (local.get $matrix) (i32.shl (i32.mul (local.get $c) (local.get $columnLength)) (i32.const 2))))
        ;; Traces, two modes at a time (width is a multiple of four).
        (local.set $e (i32.const 0))
        (block $tracesDone
          (loop $traceLoop
            (br_if $tracesDone (i32.ge_u (local.get $e) (local.get $used)))
            (local.set $si (i32.add (local.get $g) (i32.shl (local.get $e) (i32.const 2))))
            (v128.store (i32.add (local.get $trace) (i32.shl (local.get $e) (i32.const 3)))
              (f64x2.add
                (f64x2.add
                  (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $si)))
                  (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $si) (local.get $stride)))))
                (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $si) (i32.shl (local.get $stride) (i32.const 1)))))))
            (local.set $e (i32.add (local.get $e) (i32.const 2)))
            (br $traceLoop)))
        (local.set $r (i32.const 0))
        (local.set $i (i32.const 0))
        (block $modesDone
          (loop $mode
            (br_if $modesDone (i32.ge_u (local.get $i) (local.get $used)))
            (local.set $si (i32.add (local.get $g) (i32.shl (local.get $i) (i32.const 2))))
            (local.set $x0 (f64.promote_f32 (f32.load (local.get $si))))
            (local.set $x1 (f64.promote_f32 (f32.load (i32.add (local.get $si) (local.get $stride)))))
            (local.set $x2 (f64.promote_f32 (f32.load (i32.add (local.get $si) (i32.mul (local.get $stride) (i32.const 2))))))
            (local.set $x3 (f64.promote_f32 (f32.load (i32.add (local.get $si) (i32.mul (local.get $stride) (i32.const 3))))))
            (local.set $x4 (f64.promote_f32 (f32.load (i32.add (local.get $si) (i32.mul (local.get $stride) (i32.const 4))))))
            (local.set $x5 (f64.promote_f32 (f32.load (i32.add (local.get $si) (i32.mul (local.get $stride) (i32.const 5))))))
            (local.set $xt (f64.load (i32.add (local.get $trace) (i32.shl (local.get $i) (i32.const 3)))))
            (local.set $a0 (f64x2.splat (local.get $x0))) (local.set $a1 (f64x2.splat (local.get $x1))) (local.set $a2 (f64x2.splat (local.get $x2)))
            (local.set $a3 (f64x2.splat (local.get $x3))) (local.set $a4 (f64x2.splat (local.get $x4))) (local.set $a5 (f64x2.splat (local.get $x5)))
            (local.set $ti (f64x2.splat (local.get $xt)))
            (local.set $last (select (local.get $paired) (i32.add (local.get $i) (i32.const 1)) (i32.lt_u (local.get $i) (local.get $paired))))
            (local.set $j (local.get $i))
            (block $pairsDone
              (loop $pairTwo
                (br_if $pairsDone (i32.ge_u (i32.add (local.get $j) (i32.const 1)) (local.get $last)))
                (local.set $sj (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $shear
                  (f64x2.add
                    (f64x2.add
                      (f64x2.add
                        (f64x2.add
                          (f64x2.add
                            (f64x2.mul (local.get $a0) (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $sj))))
                            (f64x2.mul (local.get $a1) (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $sj) (local.get $stride))))))
                          (f64x2.mul (local.get $a2) (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 2)))))))
                        (f64x2.mul (local.get $a3) (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 3)))))))
                      (f64x2.mul (local.get $a4) (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 4)))))))
                    (f64x2.mul (local.get $a5) (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 5))))))))
                (local.set $shear (f64x2.mul (local.get $shear) (v128.load (i32.add (local.get $shearScale) (i32.shl (local.get $r) (i32.const 3))))))
                (local.set $volume (f64x2.mul
                  (f64x2.mul (local.get $ti) (v128.load (i32.add (local.get $trace) (i32.shl (local.get $j) (i32.const 3)))))
                  (v128.load (i32.add (local.get $scale) (i32.shl (local.get $r) (i32.const 3))))))
                ;; Rows 2r .. 2r + 3 of the column: (shear_r, volume_r, shear_r+1, volume_r+1).
                (v128.store (i32.add (local.get $o) (i32.shl (local.get $r) (i32.const 3)))
                  (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23
                    (f32x4.demote_f64x2_zero (local.get $shear)) (f32x4.demote_f64x2_zero (local.get $volume))))
                (local.set $tp (i32.add (local.get $target) (i32.shl (local.get $r) (i32.const 4))))
                (v128.store (local.get $tp) (f64x2.add (v128.load (local.get $tp))
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $shear) (local.get $volume))))
                (v128.store offset=16 (local.get $tp) (f64x2.add (v128.load offset=16 (local.get $tp))
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $shear) (local.get $volume))))
                (local.set $j (i32.add (local.get $j) (i32.const 2)))
                (local.set $r (i32.add (local.get $r) (i32.const 2)))
                (br $pairTwo)))
            (if (i32.lt_u (local.get $j) (local.get $last))
              (then
                (local.set $sj (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $shearOne (f64.mul
                  (f64.add
                    (f64.add
                      (f64.add
                        (f64.add
                          (f64.add
                            (f64.mul (local.get $x0) (f64.promote_f32 (f32.load (local.get $sj))))
                            (f64.mul (local.get $x1) (f64.promote_f32 (f32.load (i32.add (local.get $sj) (local.get $stride))))))
                          (f64.mul (local.get $x2) (f64.promote_f32 (f32.load (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 2)))))))
                        (f64.mul (local.get $x3) (f64.promote_f32 (f32.load (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 3)))))))
                      (f64.mul (local.get $x4) (f64.promote_f32 (f32.load (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 4)))))))
                    (f64.mul (local.get $x5) (f64.promote_f32 (f32.load (i32.add (local.get $sj) (i32.mul (local.get $stride) (i32.const 5)))))))
                  (f64.load (i32.add (local.get $shearScale) (i32.shl (local.get $r) (i32.const 3))))))
                (local.set $volumeOne (f64.mul
                  (f64.mul (local.get $xt) (f64.load (i32.add (local.get $trace) (i32.shl (local.get $j) (i32.const 3)))))
                  (f64.load (i32.add (local.get $scale) (i32.shl (local.get $r) (i32.const 3))))))
                (f32.store (i32.add (local.get $o) (i32.shl (local.get $r) (i32.const 3))) (f32.demote_f64 (local.get $shearOne)))
                (f32.store offset=4 (i32.add (local.get $o) (i32.shl (local.get $r) (i32.const 3))) (f32.demote_f64 (local.get $volumeOne)))
                (local.set $tp (i32.add (local.get $target) (i32.shl (local.get $r) (i32.const 4))))
                (f64.store (local.get $tp) (f64.add (f64.load (local.get $tp)) (local.get $shearOne)))
                (f64.store offset=8 (local.get $tp) (f64.add (f64.load offset=8 (local.get $tp)) (local.get $volumeOne)))
                (local.set $r (i32.add (local.get $r) (i32.const 1)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $mode)))
        (f32.store (i32.add (local.get $o) (i32.shl (i32.sub (local.get $rows) (i32.const 1)) (i32.const 2))) (f32.demote_f64 (local.get $volumeScale)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $point))))
)
