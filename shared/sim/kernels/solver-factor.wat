;; Part of solver.wat's module (build-kernels.ts includes it there): the preconditioner's kernels, its Cholesky
;; factor columns and solves, and the contacts' Hessian sums and low-rank correction it factors and applies.

  ;; b[0..count) -= x L1[0..count) + y L0[0..count) (L1, L0: two rows of a factor): the backward sweep's update
  ;; for two solved unknowns at once, b loaded and stored once for both.
  (func $axpy2 (param $b i32) (param $l1 i32) (param $l0 i32) (param $x f64) (param $y f64) (param $count i32)
    (local $xv v128) (local $yv v128)
    (local.set $xv (f64x2.splat (local.get $x)))
    (local.set $yv (f64x2.splat (local.get $y)))
    (block $pairsDone
      (loop $pair
        (br_if $pairsDone (i32.lt_s (local.get $count) (i32.const 2)))
        (v128.store (local.get $b) (f64x2.sub (v128.load (local.get $b))
          (f64x2.add (f64x2.mul (local.get $xv) (v128.load (local.get $l1))) (f64x2.mul (local.get $yv) (v128.load (local.get $l0))))))
        (local.set $b (i32.add (local.get $b) (i32.const 16)))
        (local.set $l1 (i32.add (local.get $l1) (i32.const 16)))
        (local.set $l0 (i32.add (local.get $l0) (i32.const 16)))
        (local.set $count (i32.sub (local.get $count) (i32.const 2)))
        (br $pair)))
    (if (i32.gt_s (local.get $count) (i32.const 0))
      (then
        (f64.store (local.get $b) (f64.sub (f64.load (local.get $b))
          (f64.add (f64.mul (local.get $x) (f64.load (local.get $l1))) (f64.mul (local.get $y) (f64.load (local.get $l0)))))))))

  ;; Solves L L^T x = b in place (b becomes x), reading only L's lower triangle (linalg.ts). The forward sweep goes
  ;; two rows at a time: both sums over what is already solved share its loads, then the second row takes the first's
  ;; answer. The backward sweep solves rows n - 1, n - 2, ... two at a time and takes their share out of the rows
  ;; above at once (rows of L, read in order): no transposed copy, and half the memory a solve reads.
  (func (export "choleskySolve") (param $n i32) (param $l i32) (param $b i32)
    (local $i i32) (local $row i32) (local $next i32) (local $bi i32) (local $stride i32) (local $x f64) (local $y f64)
    (local.set $stride (i32.mul (local.get $n) (i32.const 8)))
    (local.set $row (local.get $l))
    (local.set $bi (local.get $b))
    ;; forward: b[i] = (b[i] - L[i, 0..i) . b[0..i)) / L[i, i]
    (block $forwardDone
      (loop $forward
        (br_if $forwardDone (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.lt_u (i32.add (local.get $i) (i32.const 1)) (local.get $n))
          (then
            (local.set $next (i32.add (local.get $row) (local.get $stride)))
            (local.set $x (f64.div
              (f64.sub (f64.load (local.get $bi)) (call $dot2 (local.get $row) (local.get $next) (local.get $b) (local.get $i)))
              (f64.load (i32.add (local.get $row) (i32.mul (local.get $i) (i32.const 8))))))
            (f64.store (local.get $bi) (local.get $x))
            (f64.store offset=8 (local.get $bi) (f64.div
              (f64.sub (f64.sub (f64.load offset=8 (local.get $bi)) (global.get $second))
                (f64.mul (f64.load (i32.add (local.get $next) (i32.mul (local.get $i) (i32.const 8)))) (local.get $x)))
              (f64.load offset=8 (i32.add (local.get $next) (i32.mul (local.get $i) (i32.const 8))))))
            (local.set $row (i32.add (local.get $next) (local.get $stride)))
            (local.set $bi (i32.add (local.get $bi) (i32.const 16)))
            (local.set $i (i32.add (local.get $i) (i32.const 2))))
          (else
            (f64.store (local.get $bi) (f64.div
              (f64.sub (f64.load (local.get $bi)) (call $dot (local.get $row) (local.get $b) (local.get $i)))
              (f64.load (i32.add (local.get $row) (i32.mul (local.get $i) (i32.const 8))))))
            (local.set $row (i32.add (local.get $row) (local.get $stride)))
            (local.set $bi (i32.add (local.get $bi) (i32.const 8)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))))
        (br $forward)))
    ;; backward, rows i - 1 and i - 2 together: x = b[i-1] / L[i-1, i-1], y = (b[i-2] - L[i-1, i-2] x) / L[i-2, i-2],
    ;; then b[0..i-2) -= x L[i-1, 0..i-2) + y L[i-2, 0..i-2). Here $row is row i's start and $bi b[i]'s address.
    (block $backwardDone
      (loop $backward
        (br_if $backwardDone (i32.eqz (local.get $i)))
        (local.set $row (i32.sub (local.get $row) (local.get $stride)))
        (if (i32.ge_u (local.get $i) (i32.const 2))
          (then
            (local.set $next (i32.sub (local.get $row) (local.get $stride)))
            (local.set $bi (i32.sub (local.get $bi) (i32.const 16)))
            (local.set $x (f64.div (f64.load offset=8 (local.get $bi))
              (f64.load offset=8 (i32.add (local.get $row) (i32.shl (i32.sub (local.get $i) (i32.const 2)) (i32.const 3))))))
            (local.set $y (f64.div
              (f64.sub (f64.load (local.get $bi))
                (f64.mul (f64.load (i32.add (local.get $row) (i32.shl (i32.sub (local.get $i) (i32.const 2)) (i32.const 3)))) (local.get $x)))
              (f64.load (i32.add (local.get $next) (i32.shl (i32.sub (local.get $i) (i32.const 2)) (i32.const 3))))))
            (f64.store offset=8 (local.get $bi) (local.get $x))
            (f64.store (local.get $bi) (local.get $y))
            (local.set $i (i32.sub (local.get $i) (i32.const 2)))
            (call $axpy2 (local.get $b) (local.get $row) (local.get $next) (local.get $x) (local.get $y) (local.get $i))
            (local.set $row (local.get $next)))
          (else
            (local.set $bi (i32.sub (local.get $bi) (i32.const 8)))
            (f64.store (local.get $bi) (f64.div (f64.load (local.get $bi)) (f64.load (local.get $row))))
            (local.set $i (i32.const 0))))
        (br $backward))))

  ;; contactGrams: one contact's share of the contacts' Hessian sums (contact-hessian.ts, ContactHessianAssembler.add):
  ;; tangent[j, k] += (wt b_j) b_k and difference[j, k] += (wd b_j) b_k, the JS loop's products in its order, for
  ;; every j with b_j != 0 and k from j rounded down to even (the upper triangle, plus at most one entry below the
  ;; diagonal a row, which the assembler's finish overwrites when it mirrors the upper triangle before reading the
  ;; lower). tangent and difference: m x m row-major; b: the sample's basis row; m even.
  (func (export "contactGrams") (param $m i32) (param $b i32) (param $wt f64) (param $wd f64) (param $tangent i32) (param $difference i32)
    (local $j i32) (local $k i32) (local $at i32) (local $bj f64) (local $tj v128) (local $dj v128) (local $bk v128) (local $t i32) (local $d i32)
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $j) (local.get $m)))
        (local.set $bj (f64.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 3)))))
        (if (f64.ne (local.get $bj) (f64.const 0))
          (then
            (local.set $tj (f64x2.splat (f64.mul (local.get $wt) (local.get $bj))))
            (local.set $dj (f64x2.splat (f64.mul (local.get $wd) (local.get $bj))))
            (local.set $k (i32.and (local.get $j) (i32.const -2)))
            (local.set $at (i32.shl (i32.add (i32.mul (local.get $j) (local.get $m)) (local.get $k)) (i32.const 3)))
            (block $rowDone
              (loop $pair
                (br_if $rowDone (i32.ge_u (local.get $k) (local.get $m)))
                (local.set $bk (v128.load (i32.add (local.get $b) (i32.shl (local.get $k) (i32.const 3)))))
                (local.set $t (i32.add (local.get $tangent) (local.get $at)))
                (local.set $d (i32.add (local.get $difference) (local.get $at)))
                (v128.store (local.get $t) (f64x2.add (v128.load (local.get $t)) (f64x2.mul (local.get $tj) (local.get $bk))))
                (v128.store (local.get $d) (f64x2.add (v128.load (local.get $d)) (f64x2.mul (local.get $dj) (local.get $bk))))
                (local.set $at (i32.add (local.get $at) (i32.const 16)))
                (local.set $k (i32.add (local.get $k) (i32.const 2)))
                (br $pair)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $row))))

  ;; addScaledPair: dst[j n + k] += t a[j m + k] + d b[j m + k] for j, k < m (a, b: full m x m row-major; dst: an
  ;; m x m block of a row-major matrix whose rows are n apart; m even): a contact group's sums into one of the nine
  ;; blocks of the contacts' Hessian, the JS loop's products and sums in its order.
  (func (export "addScaledPair") (param $m i32) (param $n i32) (param $dst i32) (param $t f64) (param $a i32) (param $d f64) (param $b i32)
    (local $j i32) (local $k i32) (local $row i32) (local $tv v128) (local $dv v128) (local $skip i32)
    (local.set $tv (f64x2.splat (local.get $t)))
    (local.set $dv (f64x2.splat (local.get $d)))
    ;; From one row's end to the next row's start in dst.
    (local.set $skip (i32.shl (i32.sub (local.get $n) (local.get $m)) (i32.const 3)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $j) (local.get $m)))
        (local.set $k (i32.const 0))
        (block $rowDone
          (loop $pair
            (br_if $rowDone (i32.ge_u (local.get $k) (local.get $m)))
            (v128.store (local.get $dst) (f64x2.add (v128.load (local.get $dst))
              (f64x2.add (f64x2.mul (local.get $tv) (v128.load (local.get $a))) (f64x2.mul (local.get $dv) (v128.load (local.get $b))))))
            (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
            (local.set $a (i32.add (local.get $a) (i32.const 16)))
            (local.set $b (i32.add (local.get $b) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 2)))
            (br $pair)))
        (local.set $dst (i32.add (local.get $dst) (local.get $skip)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $rows))))

  ;; contactAffineColumns: one contact's share of C A, the contacts' Hessian on the constant channel's twelve affine
  ;; coordinates (affine-correction.ts's build, its JS loop's products and sums in its order): for each pair of axes
  ;; (a, c), W_ac = wn n_c n_a + wt ([a = c] - n_c n_a), and for j < 4 column 4a + j of v (n numbers, column-major),
  ;; block c, gains (W_ac b_j) b. b: the sample's basis row (m even); v: 12 columns of n = 3m.
  (func (export "contactAffineColumns") (param $m i32) (param $b i32) (param $nx f64) (param $ny f64) (param $nz f64) (param $wn f64) (param $wt f64) (param $v i32)
    (local $a i32) (local $c i32) (local $j i32) (local $k i32) (local $na f64) (local $nc f64) (local $w f64) (local $wb f64)
    (local $wv v128) (local $col i32) (local $src i32) (local $n8 i32)
    (local.set $n8 (i32.mul (local.get $m) (i32.const 24)))
    (block $aDone
      (loop $aLoop
        (br_if $aDone (i32.ge_u (local.get $a) (i32.const 3)))
        (local.set $na (select (local.get $nx) (select (local.get $ny) (local.get $nz) (i32.eq (local.get $a) (i32.const 1))) (i32.eqz (local.get $a))))
        (local.set $c (i32.const 0))
        (block $cDone
          (loop $cLoop
            (br_if $cDone (i32.ge_u (local.get $c) (i32.const 3)))
            (local.set $nc (select (local.get $nx) (select (local.get $ny) (local.get $nz) (i32.eq (local.get $c) (i32.const 1))) (i32.eqz (local.get $c))))
            (local.set $w (f64.add (f64.mul (f64.mul (local.get $wn) (local.get $nc)) (local.get $na))
              (f64.mul (local.get $wt) (f64.sub (f64.convert_i32_u (i32.eq (local.get $a) (local.get $c))) (f64.mul (local.get $nc) (local.get $na))))))
            (if (f64.ne (local.get $w) (f64.const 0))
              (then
                (local.set $j (i32.const 0))
                (block $jDone
                  (loop $jLoop
                    (br_if $jDone (i32.ge_u (local.get $j) (i32.const 4)))
                    (local.set $wb (f64.mul (local.get $w) (f64.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 3))))))
                    (if (f64.ne (local.get $wb) (f64.const 0))
                      (then
                        (local.set $wv (f64x2.splat (local.get $wb)))
                        ;; column (4a + j), block c: v + 8 ((4a + j) n + c m)
                        (local.set $col (i32.add (local.get $v)
                          (i32.add (i32.mul (i32.add (i32.shl (local.get $a) (i32.const 2)) (local.get $j)) (local.get $n8))
                            (i32.mul (local.get $c) (i32.shl (local.get $m) (i32.const 3))))))
                        (local.set $src (local.get $b))
                        (local.set $k (i32.const 0))
                        (block $kDone
                          (loop $kLoop
                            (br_if $kDone (i32.ge_u (local.get $k) (local.get $m)))
                            (v128.store (local.get $col) (f64x2.add (v128.load (local.get $col)) (f64x2.mul (local.get $wv) (v128.load (local.get $src)))))
                            (local.set $col (i32.add (local.get $col) (i32.const 16)))
                            (local.set $src (i32.add (local.get $src) (i32.const 16)))
                            (local.set $k (i32.add (local.get $k) (i32.const 2)))
                            (br $kLoop)))))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $jLoop)))))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $cLoop)))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (br $aLoop))))

  ;; Columns [from, to) of an in-place left-looking Cholesky factorisation (linalg.choleskyColumns): 1, or 0 when
  ;; the matrix is not positive definite.
  (func (export "choleskyColumns") (param $n i32) (param $a i32) (param $from i32) (param $to i32) (result i32)
    (local $j i32) (local $i i32) (local $rowJ i32) (local $rowI i32) (local $at i32) (local $stride i32)
    (local $diag f64) (local $inv f64)
    (local.set $stride (i32.mul (local.get $n) (i32.const 8)))
    (local.set $j (local.get $from))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $j) (local.get $to)))
        (local.set $rowJ (i32.add (local.get $a) (i32.mul (local.get $j) (local.get $stride))))
        (local.set $at (i32.add (local.get $rowJ) (i32.mul (local.get $j) (i32.const 8))))
        (local.set $diag (f64.sub (f64.load (local.get $at)) (call $dot (local.get $rowJ) (local.get $rowJ) (local.get $j))))
        (if (i32.eqz (f64.gt (local.get $diag) (f64.const 0))) (then (return (i32.const 0))))
        (local.set $diag (f64.sqrt (local.get $diag)))
        (f64.store (local.get $at) (local.get $diag))
        (local.set $inv (f64.div (f64.const 1) (local.get $diag)))
        (local.set $i (i32.add (local.get $j) (i32.const 1)))
        (local.set $rowI (i32.add (local.get $rowJ) (local.get $stride)))
        ;; Two rows at a time: their sums share the loads of row j.
        (block $rowsDone
          (loop $row
            (br_if $rowsDone (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
            (local.set $at (i32.add (local.get $rowI) (i32.mul (local.get $j) (i32.const 8))))
            (f64.store (local.get $at) (f64.mul (local.get $inv)
              (f64.sub (f64.load (local.get $at)) (call $dot2 (local.get $rowI) (i32.add (local.get $rowI) (local.get $stride)) (local.get $rowJ) (local.get $j)))))
            (local.set $at (i32.add (local.get $at) (local.get $stride)))
            (f64.store (local.get $at) (f64.mul (local.get $inv) (f64.sub (f64.load (local.get $at)) (global.get $second))))
            (local.set $rowI (i32.add (local.get $rowI) (i32.shl (local.get $stride) (i32.const 1))))
            (local.set $i (i32.add (local.get $i) (i32.const 2)))
            (br $row)))
        (if (i32.lt_u (local.get $i) (local.get $n))
          (then
            (local.set $at (i32.add (local.get $rowI) (i32.mul (local.get $j) (i32.const 8))))
            (f64.store (local.get $at) (f64.mul (local.get $inv)
              (f64.sub (f64.load (local.get $at)) (call $dot (local.get $rowI) (local.get $rowJ) (local.get $j)))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $column)))
    (i32.const 1))
