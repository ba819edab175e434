;; The reduced solver's hot loops in WebAssembly SIMD (f64x2): the elastic pass, dense products and the positions of
;; a point set here; the preconditioner's (Cholesky columns and solves, the contacts' Hessian sums and low-rank
;; correction) in solver-factor.wat and L-BFGS's two-loop recursion in solver-lbfgs.wat, included at this module's end.
;; Each computes what the JS loop it stands in for computes, to rounding (the tests compare them); every address is a
;; byte offset into the instance's memory (solver-kernels.ts and the callers that allocate there lay it out).
;; `npm run build:kernels` compiles the three into solver-wasm.ts; a test checks that the two agree.
;;
;; elastic: two cubature points per lane pair. The Jacobian dF/dq is never stored: handle h's four basis functions
;; are w_h X~_j (X~ = [X, 1]), so the gradient of basis 4h + j is w_h e_j + X~_j grad w_h (e_3 = 0), and each pair
;; holds only X, its volumes and each handle's w and grad w (a third of the numbers, and a quarter fewer products
;; than a stored m x 3 block). For each pair it forms F = I + sum_h [w_h q_a[4h..4h+2] + (q_a[4h..4h+3] . X~) grad w_h],
;; the stable Neo-Hookean energy density and stress P (material.ts), and adds scale * V times P's share into the
;; gradient: for handle h, s_a = P_a . grad w_h, then the gradient's entry (a, 4h + j) gets X~_j s_a + w_h P_aj
;; (P_a3 = 0).
;; Its memory layout (16-byte aligned; lane k = cubature point 2p + k, an odd count's last lane repeating the last
;; point with volume 0):
;;   pts:  pairs x [X0 X1 X2 V, then per handle w gx gy gz] as f64x2: 64 (handles + 1) bytes a pair
;;   q:    3m f64 (m = 4 handles), component-major (read)
;;   acc:  3m f64x2 gradient accumulators (scratch)
;;   out:  3m f64 gradient (written), then the smallest volume ratio J
(module
  (memory (export "memory") 1)
  (func (export "elastic")
    (param $handles i32) (param $pairs i32) (param $pts i32) (param $q i32) (param $acc i32) (param $out i32)
    (param $mu f64) (param $lambda f64) (param $scale f64)
    (result f64)
    (local $p i32) (local $h i32) (local $hp i32) (local $qp i32) (local $gp i32) (local $ap i32)
    (local $m8 i32) (local $m16 i32) (local $end i32)
    (local $f00 v128) (local $f01 v128) (local $f02 v128)
    (local $f10 v128) (local $f11 v128) (local $f12 v128)
    (local $f20 v128) (local $f21 v128) (local $f22 v128)
    (local $x0 v128) (local $x1 v128) (local $x2 v128)
    (local $w v128) (local $gx v128) (local $gy v128) (local $gz v128)
    (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $u v128)
    (local $c00 v128) (local $c01 v128) (local $c02 v128)
    (local $c10 v128) (local $c11 v128) (local $c12 v128)
    (local $c20 v128) (local $c21 v128) (local $c22 v128)
    (local $j v128) (local $jm1 v128) (local $s v128) (local $vs v128) (local $energy v128)
    (local $muv v128) (local $lambdav v128) (local $one v128) (local $half v128)
    (local $minJ f64) (local $jLane f64)
    (local.set $m16 (i32.mul (local.get $handles) (i32.const 64)))
    (local.set $m8 (i32.mul (local.get $handles) (i32.const 32)))
    (local.set $muv (f64x2.splat (local.get $mu)))
    (local.set $lambdav (f64x2.splat (local.get $lambda)))
    (local.set $one (f64x2.splat (f64.const 1)))
    (local.set $half (f64x2.splat (f64.const 0.5)))
    (local.set $minJ (f64.const inf))
    ;; acc <- 0
    (local.set $gp (local.get $acc))
    (local.set $end (i32.add (local.get $acc) (i32.mul (local.get $m16) (i32.const 3))))
    (block $zeroed
      (loop $zero
        (br_if $zeroed (i32.ge_u (local.get $gp) (local.get $end)))
        (v128.store (local.get $gp) (v128.const i64x2 0 0))
        (local.set $gp (i32.add (local.get $gp) (i32.const 16)))
        (br $zero)))
    (local.set $p (i32.const 0))
    (block $pairsDone
      (loop $pair
        (br_if $pairsDone (i32.ge_u (local.get $p) (local.get $pairs)))
        (local.set $x0 (v128.load (local.get $pts)))
        (local.set $x1 (v128.load offset=16 (local.get $pts)))
        (local.set $x2 (v128.load offset=32 (local.get $pts)))
        ;; F = I + sum_h [w q_a[4h..4h+2] + u_a grad w], u_a = q_a[4h..4h+3] . X~
        (local.set $f00 (local.get $one)) (local.set $f01 (v128.const i64x2 0 0)) (local.set $f02 (v128.const i64x2 0 0))
        (local.set $f10 (v128.const i64x2 0 0)) (local.set $f11 (local.get $one)) (local.set $f12 (v128.const i64x2 0 0))
        (local.set $f20 (v128.const i64x2 0 0)) (local.set $f21 (v128.const i64x2 0 0)) (local.set $f22 (local.get $one))
        (local.set $hp (i32.add (local.get $pts) (i32.const 64)))
        (local.set $qp (local.get $q))
        (local.set $h (i32.const 0))
        (block $fDone
          (loop $f
            (br_if $fDone (i32.ge_u (local.get $h) (local.get $handles)))
            (local.set $w (v128.load (local.get $hp)))
            (local.set $gx (v128.load offset=16 (local.get $hp)))
            (local.set $gy (v128.load offset=32 (local.get $hp)))
            (local.set $gz (v128.load offset=48 (local.get $hp)))
            ;; component x
            (local.set $q0 (v128.load64_splat (local.get $qp)))
            (local.set $q1 (v128.load64_splat offset=8 (local.get $qp)))
            (local.set $q2 (v128.load64_splat offset=16 (local.get $qp)))
            (local.set $u (f64x2.add (f64x2.add (f64x2.mul (local.get $q0) (local.get $x0)) (f64x2.mul (local.get $q1) (local.get $x1)))
              (f64x2.add (f64x2.mul (local.get $q2) (local.get $x2)) (v128.load64_splat offset=24 (local.get $qp)))))
            (local.set $f00 (f64x2.add (local.get $f00) (f64x2.add (f64x2.mul (local.get $w) (local.get $q0)) (f64x2.mul (local.get $u) (local.get $gx)))))
            (local.set $f01 (f64x2.add (local.get $f01) (f64x2.add (f64x2.mul (local.get $w) (local.get $q1)) (f64x2.mul (local.get $u) (local.get $gy)))))
            (local.set $f02 (f64x2.add (local.get $f02) (f64x2.add (f64x2.mul (local.get $w) (local.get $q2)) (f64x2.mul (local.get $u) (local.get $gz)))))
            ;; component y
            (local.set $ap (i32.add (local.get $qp) (local.get $m8)))
            (local.set $q0 (v128.load64_splat (local.get $ap)))
            (local.set $q1 (v128.load64_splat offset=8 (local.get $ap)))
            (local.set $q2 (v128.load64_splat offset=16 (local.get $ap)))
            (local.set $u (f64x2.add (f64x2.add (f64x2.mul (local.get $q0) (local.get $x0)) (f64x2.mul (local.get $q1) (local.get $x1)))
              (f64x2.add (f64x2.mul (local.get $q2) (local.get $x2)) (v128.load64_splat offset=24 (local.get $ap)))))
            (local.set $f10 (f64x2.add (local.get $f10) (f64x2.add (f64x2.mul (local.get $w) (local.get $q0)) (f64x2.mul (local.get $u) (local.get $gx)))))
            (local.set $f11 (f64x2.add (local.get $f11) (f64x2.add (f64x2.mul (local.get $w) (local.get $q1)) (f64x2.mul (local.get $u) (local.get $gy)))))
            (local.set $f12 (f64x2.add (local.get $f12) (f64x2.add (f64x2.mul (local.get $w) (local.get $q2)) (f64x2.mul (local.get $u) (local.get $gz)))))
            ;; component z
            (local.set $ap (i32.add (local.get $ap) (local.get $m8)))
            (local.set $q0 (v128.load64_splat (local.get $ap)))
            (local.set $q1 (v128.load64_splat offset=8 (local.get $ap)))
            (local.set $q2 (v128.load64_splat offset=16 (local.get $ap)))
            (local.set $u (f64x2.add (f64x2.add (f64x2.mul (local.get $q0) (local.get $x0)) (f64x2.mul (local.get $q1) (local.get $x1)))
              (f64x2.add (f64x2.mul (local.get $q2) (local.get $x2)) (v128.load64_splat offset=24 (local.get $ap)))))
            (local.set $f20 (f64x2.add (local.get $f20) (f64x2.add (f64x2.mul (local.get $w) (local.get $q0)) (f64x2.mul (local.get $u) (local.get $gx)))))
            (local.set $f21 (f64x2.add (local.get $f21) (f64x2.add (f64x2.mul (local.get $w) (local.get $q1)) (f64x2.mul (local.get $u) (local.get $gy)))))
            (local.set $f22 (f64x2.add (local.get $f22) (f64x2.add (f64x2.mul (local.get $w) (local.get $q2)) (f64x2.mul (local.get $u) (local.get $gz)))))
            (local.set $hp (i32.add (local.get $hp) (i32.const 64)))
            (local.set $qp (i32.add (local.get $qp) (i32.const 32)))
            (local.set $h (i32.add (local.get $h) (i32.const 1)))
            (br $f)))
        ;; Cofactor matrix = dJ/dF.
        (local.set $c00 (f64x2.sub (f64x2.mul (local.get $f11) (local.get $f22)) (f64x2.mul (local.get $f12) (local.get $f21))))
        (local.set $c01 (f64x2.sub (f64x2.mul (local.get $f12) (local.get $f20)) (f64x2.mul (local.get $f10) (local.get $f22))))
        (local.set $c02 (f64x2.sub (f64x2.mul (local.get $f10) (local.get $f21)) (f64x2.mul (local.get $f11) (local.get $f20))))
        (local.set $c10 (f64x2.sub (f64x2.mul (local.get $f02) (local.get $f21)) (f64x2.mul (local.get $f01) (local.get $f22))))
        (local.set $c11 (f64x2.sub (f64x2.mul (local.get $f00) (local.get $f22)) (f64x2.mul (local.get $f02) (local.get $f20))))
        (local.set $c12 (f64x2.sub (f64x2.mul (local.get $f01) (local.get $f20)) (f64x2.mul (local.get $f00) (local.get $f21))))
        (local.set $c20 (f64x2.sub (f64x2.mul (local.get $f01) (local.get $f12)) (f64x2.mul (local.get $f02) (local.get $f11))))
        (local.set $c21 (f64x2.sub (f64x2.mul (local.get $f02) (local.get $f10)) (f64x2.mul (local.get $f00) (local.get $f12))))
        (local.set $c22 (f64x2.sub (f64x2.mul (local.get $f00) (local.get $f11)) (f64x2.mul (local.get $f01) (local.get $f10))))
        (local.set $j (f64x2.add (f64x2.add
          (f64x2.mul (local.get $f00) (local.get $c00))
          (f64x2.mul (local.get $f01) (local.get $c01)))
          (f64x2.mul (local.get $f02) (local.get $c02))))
        ;; The smallest J, as the JS loop takes it (j < minJ: a NaN never wins).
        (local.set $jLane (f64x2.extract_lane 0 (local.get $j)))
        (if (f64.lt (local.get $jLane) (local.get $minJ)) (then (local.set $minJ (local.get $jLane))))
        (local.set $jLane (f64x2.extract_lane 1 (local.get $j)))
        (if (f64.lt (local.get $jLane) (local.get $minJ)) (then (local.set $minJ (local.get $jLane))))
        (local.set $jm1 (f64x2.sub (local.get $j) (local.get $one)))
        (local.set $vs (f64x2.mul (v128.load offset=48 (local.get $pts)) (f64x2.splat (local.get $scale))))
        ;; Psi = mu/2 (I1 - 3) - mu (J - 1) + lambda'/2 (J - 1)^2, with I1 = |F|^2
        (local.set $s (f64x2.add (f64x2.add (f64x2.add
          (f64x2.add (f64x2.mul (local.get $f00) (local.get $f00)) (f64x2.mul (local.get $f01) (local.get $f01)))
          (f64x2.add (f64x2.mul (local.get $f02) (local.get $f02)) (f64x2.mul (local.get $f10) (local.get $f10))))
          (f64x2.add (f64x2.mul (local.get $f11) (local.get $f11)) (f64x2.mul (local.get $f12) (local.get $f12))))
          (f64x2.add (f64x2.add (f64x2.mul (local.get $f20) (local.get $f20)) (f64x2.mul (local.get $f21) (local.get $f21)))
            (f64x2.mul (local.get $f22) (local.get $f22)))))
        (local.set $energy (f64x2.add (local.get $energy) (f64x2.mul (local.get $vs)
          (f64x2.add
            (f64x2.mul (local.get $half) (f64x2.mul (local.get $muv) (f64x2.sub (local.get $s) (f64x2.splat (f64.const 3)))))
            (f64x2.sub
              (f64x2.mul (local.get $half) (f64x2.mul (local.get $lambdav) (f64x2.mul (local.get $jm1) (local.get $jm1))))
              (f64x2.mul (local.get $muv) (local.get $jm1)))))))
        ;; P = mu F + (lambda' (J - 1) - mu) cof F, scaled by the pair's volumes and the caller's factor (reusing f, c).
        (local.set $s (f64x2.sub (f64x2.mul (local.get $lambdav) (local.get $jm1)) (local.get $muv)))
        (local.set $f00 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f00)) (f64x2.mul (local.get $s) (local.get $c00)))))
        (local.set $f01 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f01)) (f64x2.mul (local.get $s) (local.get $c01)))))
        (local.set $f02 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f02)) (f64x2.mul (local.get $s) (local.get $c02)))))
        (local.set $f10 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f10)) (f64x2.mul (local.get $s) (local.get $c10)))))
        (local.set $f11 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f11)) (f64x2.mul (local.get $s) (local.get $c11)))))
        (local.set $f12 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f12)) (f64x2.mul (local.get $s) (local.get $c12)))))
        (local.set $f20 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f20)) (f64x2.mul (local.get $s) (local.get $c20)))))
        (local.set $f21 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f21)) (f64x2.mul (local.get $s) (local.get $c21)))))
        (local.set $f22 (f64x2.mul (local.get $vs) (f64x2.add (f64x2.mul (local.get $muv) (local.get $f22)) (f64x2.mul (local.get $s) (local.get $c22)))))
        ;; For handle h: s_a = P_a . grad w; acc_a[4h + j] += X~_j s_a + w P_aj.
        (local.set $hp (i32.add (local.get $pts) (i32.const 64)))
        (local.set $gp (local.get $acc))
        (local.set $h (i32.const 0))
        (block $gDone
          (loop $g
            (br_if $gDone (i32.ge_u (local.get $h) (local.get $handles)))
            (local.set $w (v128.load (local.get $hp)))
            (local.set $gx (v128.load offset=16 (local.get $hp)))
            (local.set $gy (v128.load offset=32 (local.get $hp)))
            (local.set $gz (v128.load offset=48 (local.get $hp)))
            ;; component x
            (local.set $s (f64x2.add (f64x2.add (f64x2.mul (local.get $f00) (local.get $gx)) (f64x2.mul (local.get $f01) (local.get $gy))) (f64x2.mul (local.get $f02) (local.get $gz))))
            (v128.store (local.get $gp) (f64x2.add (v128.load (local.get $gp)) (f64x2.add (f64x2.mul (local.get $x0) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f00)))))
            (v128.store offset=16 (local.get $gp) (f64x2.add (v128.load offset=16 (local.get $gp)) (f64x2.add (f64x2.mul (local.get $x1) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f01)))))
            (v128.store offset=32 (local.get $gp) (f64x2.add (v128.load offset=32 (local.get $gp)) (f64x2.add (f64x2.mul (local.get $x2) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f02)))))
            (v128.store offset=48 (local.get $gp) (f64x2.add (v128.load offset=48 (local.get $gp)) (local.get $s)))
            ;; component y
            (local.set $ap (i32.add (local.get $gp) (local.get $m16)))
            (local.set $s (f64x2.add (f64x2.add (f64x2.mul (local.get $f10) (local.get $gx)) (f64x2.mul (local.get $f11) (local.get $gy))) (f64x2.mul (local.get $f12) (local.get $gz))))
            (v128.store (local.get $ap) (f64x2.add (v128.load (local.get $ap)) (f64x2.add (f64x2.mul (local.get $x0) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f10)))))
            (v128.store offset=16 (local.get $ap) (f64x2.add (v128.load offset=16 (local.get $ap)) (f64x2.add (f64x2.mul (local.get $x1) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f11)))))
            (v128.store offset=32 (local.get $ap) (f64x2.add (v128.load offset=32 (local.get $ap)) (f64x2.add (f64x2.mul (local.get $x2) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f12)))))
            (v128.store offset=48 (local.get $ap) (f64x2.add (v128.load offset=48 (local.get $ap)) (local.get $s)))
            ;; component z
            (local.set $ap (i32.add (local.get $ap) (local.get $m16)))
            (local.set $s (f64x2.add (f64x2.add (f64x2.mul (local.get $f20) (local.get $gx)) (f64x2.mul (local.get $f21) (local.get $gy))) (f64x2.mul (local.get $f22) (local.get $gz))))
            (v128.store (local.get $ap) (f64x2.add (v128.load (local.get $ap)) (f64x2.add (f64x2.mul (local.get $x0) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f20)))))
            (v128.store offset=16 (local.get $ap) (f64x2.add (v128.load offset=16 (local.get $ap)) (f64x2.add (f64x2.mul (local.get $x1) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f21)))))
            (v128.store offset=32 (local.get $ap) (f64x2.add (v128.load offset=32 (local.get $ap)) (f64x2.add (f64x2.mul (local.get $x2) (local.get $s)) (f64x2.mul (local.get $w) (local.get $f22)))))
            (v128.store offset=48 (local.get $ap) (f64x2.add (v128.load offset=48 (local.get $ap)) (local.get $s)))
            (local.set $hp (i32.add (local.get $hp) (i32.const 64)))
            (local.set $gp (i32.add (local.get $gp) (i32.const 64)))
            (local.set $h (i32.add (local.get $h) (i32.const 1)))
            (br $g)))
        (local.set $pts (local.get $hp))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $pair)))
    ;; out[k] = both lanes of acc[k]; then the smallest J.
    (local.set $gp (local.get $acc))
    (local.set $qp (local.get $out))
    (block $reduced
      (loop $reduce
        (br_if $reduced (i32.ge_u (local.get $gp) (local.get $end)))
        (local.set $u (v128.load (local.get $gp)))
        (f64.store (local.get $qp) (f64.add (f64x2.extract_lane 0 (local.get $u)) (f64x2.extract_lane 1 (local.get $u))))
        (local.set $gp (i32.add (local.get $gp) (i32.const 16)))
        (local.set $qp (i32.add (local.get $qp) (i32.const 8)))
        (br $reduce)))
    (f64.store (local.get $qp) (local.get $minJ))
    (f64.add (f64x2.extract_lane 0 (local.get $energy)) (f64x2.extract_lane 1 (local.get $energy))))

  ;; sum_k a[k] b[k], k < count (a, b: byte offsets; no alignment needed).
  (func $dot (param $a i32) (param $b i32) (param $count i32) (result f64)
    (local $s0 v128) (local $s1 v128) (local $total f64)
    (block $pairsDone
      (loop $quad
        (br_if $pairsDone (i32.lt_s (local.get $count) (i32.const 4)))
        (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (v128.load (local.get $a)) (v128.load (local.get $b)))))
        (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (v128.load offset=16 (local.get $a)) (v128.load offset=16 (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (local.set $count (i32.sub (local.get $count) (i32.const 4)))
        (br $quad)))
    (local.set $s0 (f64x2.add (local.get $s0) (local.get $s1)))
    (if (i32.ge_s (local.get $count) (i32.const 2))
      (then
        (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (v128.load (local.get $a)) (v128.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $b (i32.add (local.get $b) (i32.const 16)))
        (local.set $count (i32.sub (local.get $count) (i32.const 2)))))
    (local.set $total (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
    (if (i32.gt_s (local.get $count) (i32.const 0))
      (then (local.set $total (f64.add (local.get $total) (f64.mul (f64.load (local.get $a)) (f64.load (local.get $b)))))))
    (local.get $total))

  ;; Two sums sharing b: a[k] b[k] (returned) and c[k] b[k] (left in $second), k < count. Two accumulators a sum (an
  ;; add waits on the one before it in the same accumulator), b loaded once for both.
  (global $second (mut f64) (f64.const 0))
  (func $dot2 (param $a i32) (param $c i32) (param $b i32) (param $count i32) (result f64)
    (local $s0 v128) (local $s1 v128) (local $t0 v128) (local $t1 v128) (local $bv v128) (local $bw v128)
    (local $u f64) (local $v f64)
    (block $quadsDone
      (loop $quad
        (br_if $quadsDone (i32.lt_s (local.get $count) (i32.const 4)))
        (local.set $bv (v128.load (local.get $b)))
        (local.set $bw (v128.load offset=16 (local.get $b)))
        (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (v128.load (local.get $a)) (local.get $bv))))
        (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (v128.load offset=16 (local.get $a)) (local.get $bw))))
        (local.set $t0 (f64x2.add (local.get $t0) (f64x2.mul (v128.load (local.get $c)) (local.get $bv))))
        (local.set $t1 (f64x2.add (local.get $t1) (f64x2.mul (v128.load offset=16 (local.get $c)) (local.get $bw))))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $c (i32.add (local.get $c) (i32.const 32)))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (local.set $count (i32.sub (local.get $count) (i32.const 4)))
        (br $quad)))
    (local.set $s0 (f64x2.add (local.get $s0) (local.get $s1)))
    (local.set $t0 (f64x2.add (local.get $t0) (local.get $t1)))
    (local.set $u (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
    (local.set $v (f64.add (f64x2.extract_lane 0 (local.get $t0)) (f64x2.extract_lane 1 (local.get $t0))))
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.le_s (local.get $count) (i32.const 0)))
        (local.set $u (f64.add (local.get $u) (f64.mul (f64.load (local.get $a)) (f64.load (local.get $b)))))
        (local.set $v (f64.add (local.get $v) (f64.mul (f64.load (local.get $c)) (f64.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (local.set $c (i32.add (local.get $c) (i32.const 8)))
        (local.set $b (i32.add (local.get $b) (i32.const 8)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $tail)))
    (global.set $second (local.get $v))
    (local.get $u))

  ;; y[i] = scale * A[i, :] . x for i < rows (A row-major, rows x cols), two rows at a time ($dot2's loop, inlined:
  ;; through a call every two rows it took a fifth longer).
  (func (export "gemv") (param $rows i32) (param $cols i32) (param $a i32) (param $x i32) (param $y i32) (param $scale f64)
    (local $i i32) (local $stride i32) (local $b i32) (local $xp i32) (local $k i32)
    (local $s0 v128) (local $s1 v128) (local $t0 v128) (local $t1 v128) (local $xv v128) (local $xw v128)
    (local $u f64) (local $v f64)
    (local.set $stride (i32.mul (local.get $cols) (i32.const 8)))
    (block $pairsDone
      (loop $pairRows
        (br_if $pairsDone (i32.gt_u (i32.add (local.get $i) (i32.const 2)) (local.get $rows)))
        (local.set $b (i32.add (local.get $a) (local.get $stride)))
        (local.set $xp (local.get $x))
        (local.set $k (local.get $cols))
        (local.set $s0 (v128.const i64x2 0 0)) (local.set $s1 (v128.const i64x2 0 0))
        (local.set $t0 (v128.const i64x2 0 0)) (local.set $t1 (v128.const i64x2 0 0))
        (block $quadsDone
          (loop $quad
            (br_if $quadsDone (i32.lt_s (local.get $k) (i32.const 4)))
            (local.set $xv (v128.load (local.get $xp)))
            (local.set $xw (v128.load offset=16 (local.get $xp)))
            (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (v128.load (local.get $a)) (local.get $xv))))
            (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (v128.load offset=16 (local.get $a)) (local.get $xw))))
            (local.set $t0 (f64x2.add (local.get $t0) (f64x2.mul (v128.load (local.get $b)) (local.get $xv))))
            (local.set $t1 (f64x2.add (local.get $t1) (f64x2.mul (v128.load offset=16 (local.get $b)) (local.get $xw))))
            (local.set $a (i32.add (local.get $a) (i32.const 32)))
            (local.set $b (i32.add (local.get $b) (i32.const 32)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 32)))
            (local.set $k (i32.sub (local.get $k) (i32.const 4)))
            (br $quad)))
        (local.set $s0 (f64x2.add (local.get $s0) (local.get $s1)))
        (local.set $t0 (f64x2.add (local.get $t0) (local.get $t1)))
        (local.set $u (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
        (local.set $v (f64.add (f64x2.extract_lane 0 (local.get $t0)) (f64x2.extract_lane 1 (local.get $t0))))
        (block $tailDone
          (loop $tail
            (br_if $tailDone (i32.le_s (local.get $k) (i32.const 0)))
            (local.set $u (f64.add (local.get $u) (f64.mul (f64.load (local.get $a)) (f64.load (local.get $xp)))))
            (local.set $v (f64.add (local.get $v) (f64.mul (f64.load (local.get $b)) (f64.load (local.get $xp)))))
            (local.set $a (i32.add (local.get $a) (i32.const 8)))
            (local.set $b (i32.add (local.get $b) (i32.const 8)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 8)))
            (local.set $k (i32.sub (local.get $k) (i32.const 1)))
            (br $tail)))
        (f64.store (local.get $y) (f64.mul (local.get $scale) (local.get $u)))
        (f64.store offset=8 (local.get $y) (f64.mul (local.get $scale) (local.get $v)))
        ;; $a has reached the second row's start, $b the next pair's.
        (local.set $a (local.get $b))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $pairRows)))
    (if (i32.lt_u (local.get $i) (local.get $rows))
      (then (f64.store (local.get $y) (f64.mul (local.get $scale) (call $dot (local.get $a) (local.get $x) (local.get $cols)))))))

  ;; out[0..2] = row . q_a (row: m numbers, q component-major 3m, m even): one point's displacement.
  (func $displacement (param $r i32) (param $m i32) (param $q i32) (param $out i32)
    (local $k i32) (local $m8 i32) (local $m16 i32) (local $sx v128) (local $sy v128) (local $sz v128) (local $b v128)
    (local.set $m8 (i32.mul (local.get $m) (i32.const 8)))
    (local.set $m16 (i32.mul (local.get $m) (i32.const 16)))
    (block $rowDone
      (loop $pair
        (br_if $rowDone (i32.ge_u (local.get $k) (local.get $m)))
        (local.set $b (v128.load (local.get $r)))
        (local.set $sx (f64x2.add (local.get $sx) (f64x2.mul (local.get $b) (v128.load (local.get $q)))))
        (local.set $sy (f64x2.add (local.get $sy) (f64x2.mul (local.get $b) (v128.load (i32.add (local.get $q) (local.get $m8))))))
        (local.set $sz (f64x2.add (local.get $sz) (f64x2.mul (local.get $b) (v128.load (i32.add (local.get $q) (local.get $m16))))))
        (local.set $r (i32.add (local.get $r) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (local.set $k (i32.add (local.get $k) (i32.const 2)))
        (br $pair)))
    (f64.store (local.get $out) (f64.add (f64x2.extract_lane 0 (local.get $sx)) (f64x2.extract_lane 1 (local.get $sx))))
    (f64.store offset=8 (local.get $out) (f64.add (f64x2.extract_lane 0 (local.get $sy)) (f64x2.extract_lane 1 (local.get $sy))))
    (f64.store offset=16 (local.get $out) (f64.add (f64x2.extract_lane 0 (local.get $sz)) (f64x2.extract_lane 1 (local.get $sz)))))

  ;; out[3i + a] = rows[i, :] . q_a for i < count (rows: count x m): the displacements of a point set.
  (func (export "displacements") (param $count i32) (param $m i32) (param $rows i32) (param $q i32) (param $out i32)
    (local $i i32) (local $stride i32)
    (local.set $stride (i32.mul (local.get $m) (i32.const 8)))
    (block $done
      (loop $point
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (call $displacement (local.get $rows) (local.get $m) (local.get $q) (local.get $out))
        (local.set $rows (i32.add (local.get $rows) (local.get $stride)))
        (local.set $out (i32.add (local.get $out) (i32.const 24)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $point))))

  ;; out[3i + a] = rows[s_i, :] . q_a for the listed points s_i (indices: count f64 holding point numbers).
  (func (export "displacementsOf") (param $count i32) (param $indices i32) (param $m i32) (param $rows i32) (param $q i32) (param $out i32)
    (local $i i32) (local $stride i32)
    (local.set $stride (i32.mul (local.get $m) (i32.const 8)))
    (block $done
      (loop $point
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (call $displacement
          (i32.add (local.get $rows) (i32.mul (i32.trunc_f64_u (f64.load (local.get $indices))) (local.get $stride)))
          (local.get $m) (local.get $q) (local.get $out))
        (local.set $indices (i32.add (local.get $indices) (i32.const 8)))
        (local.set $out (i32.add (local.get $out) (i32.const 24)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $point))))

  ;; out_a = sum_i forces[3i + a] rows[s_i, :] (out: 3m, overwritten; m even): point forces on the listed points
  ;; as generalised forces.
  (func (export "scatterForces") (param $count i32) (param $indices i32) (param $m i32) (param $rows i32) (param $forces i32) (param $out i32)
    (local $i i32) (local $k i32) (local $r i32) (local $o i32) (local $end i32) (local $m8 i32) (local $m16 i32)
    (local $fx v128) (local $fy v128) (local $fz v128) (local $b v128)
    (local.set $m8 (i32.mul (local.get $m) (i32.const 8)))
    (local.set $m16 (i32.mul (local.get $m) (i32.const 16)))
    (local.set $o (local.get $out))
    (local.set $end (i32.add (local.get $out) (i32.mul (local.get $m) (i32.const 24))))
    (block $zeroed
      (loop $zero
        (br_if $zeroed (i32.ge_u (local.get $o) (local.get $end)))
        (v128.store (local.get $o) (v128.const i64x2 0 0))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $zero)))
    (block $done
      (loop $point
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $r (i32.add (local.get $rows) (i32.mul (i32.trunc_f64_u (f64.load (local.get $indices))) (local.get $m8))))
        (local.set $fx (v128.load64_splat (local.get $forces)))
        (local.set $fy (v128.load64_splat offset=8 (local.get $forces)))
        (local.set $fz (v128.load64_splat offset=16 (local.get $forces)))
        (local.set $o (local.get $out))
        (local.set $k (i32.const 0))
        (block $rowDone
          (loop $pair
            (br_if $rowDone (i32.ge_u (local.get $k) (local.get $m)))
            (local.set $b (v128.load (local.get $r)))
            (v128.store (local.get $o) (f64x2.add (v128.load (local.get $o)) (f64x2.mul (local.get $fx) (local.get $b))))
            (v128.store (i32.add (local.get $o) (local.get $m8))
              (f64x2.add (v128.load (i32.add (local.get $o) (local.get $m8))) (f64x2.mul (local.get $fy) (local.get $b))))
            (v128.store (i32.add (local.get $o) (local.get $m16))
              (f64x2.add (v128.load (i32.add (local.get $o) (local.get $m16))) (f64x2.mul (local.get $fz) (local.get $b))))
            (local.set $r (i32.add (local.get $r) (i32.const 16)))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 2)))
            (br $pair)))
        (local.set $indices (i32.add (local.get $indices) (i32.const 8)))
        (local.set $forces (i32.add (local.get $forces) (i32.const 24)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $point))))

  ;; The preconditioner's kernels (its solves, factor columns and contacts' sums) and L-BFGS's, in their own files:
  ;; build-kernels.ts puts each in here, where its line stands.
  ;; include solver-factor.wat

  ;; include solver-lbfgs.wat
)
