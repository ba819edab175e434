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
        (br $column)))))
