;; Part of solver.wat's module (build-kernels.ts includes it there): L-BFGS's two-loop recursion (minimiser.ts).

  ;; y[0..count) += alpha x[0..count) (x, y: byte offsets; no alignment needed).
  (func $axpy (param $alpha f64) (param $x i32) (param $y i32) (param $count i32)
    (local $av v128)
    (local.set $av (f64x2.splat (local.get $alpha)))
    (block $pairsDone
      (loop $pair
        (br_if $pairsDone (i32.lt_s (local.get $count) (i32.const 2)))
        (v128.store (local.get $y) (f64x2.add (v128.load (local.get $y)) (f64x2.mul (local.get $av) (v128.load (local.get $x)))))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (local.set $count (i32.sub (local.get $count) (i32.const 2)))
        (br $pair)))
    (if (i32.gt_s (local.get $count) (i32.const 0))
      (then (f64.store (local.get $y) (f64.add (f64.load (local.get $y)) (f64.mul (local.get $alpha) (f64.load (local.get $x))))))))

  ;; L-BFGS's two-loop recursion (minimiser.ts) over its `stored` newest pairs, slot = (newest - k + memory) % memory
  ;; for the k-th newest: s and y hold `memory` vectors of n, rho and alphas one number a slot. lbfgsFirstLoop, newest
  ;; first: alphas[slot] = rho[slot] (s_slot . d), d -= alphas[slot] y_slot. lbfgsSecondLoop, oldest first (after the
  ;; preconditioner): d += (alphas[slot] - rho[slot] (y_slot . d)) s_slot.
  (func (export "lbfgsFirstLoop") (param $n i32) (param $s i32) (param $y i32) (param $rho i32) (param $alphas i32) (param $memory i32) (param $stored i32) (param $newest i32) (param $d i32)
    (local $k i32) (local $slot i32) (local $a f64) (local $stride i32)
    (local.set $stride (i32.mul (local.get $n) (i32.const 8)))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $k) (local.get $stored)))
        (local.set $slot (i32.rem_u (i32.add (i32.sub (local.get $newest) (local.get $k)) (local.get $memory)) (local.get $memory)))
        (local.set $a (f64.mul (f64.load (i32.add (local.get $rho) (i32.shl (local.get $slot) (i32.const 3))))
          (call $dot (i32.add (local.get $s) (i32.mul (local.get $slot) (local.get $stride))) (local.get $d) (local.get $n))))
        (f64.store (i32.add (local.get $alphas) (i32.shl (local.get $slot) (i32.const 3))) (local.get $a))
        (call $axpy (f64.neg (local.get $a)) (i32.add (local.get $y) (i32.mul (local.get $slot) (local.get $stride))) (local.get $d) (local.get $n))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $pair))))

  (func (export "lbfgsSecondLoop") (param $n i32) (param $s i32) (param $y i32) (param $rho i32) (param $alphas i32) (param $memory i32) (param $stored i32) (param $newest i32) (param $d i32)
    (local $k i32) (local $slot i32) (local $b f64) (local $stride i32)
    (local.set $stride (i32.mul (local.get $n) (i32.const 8)))
    (local.set $k (local.get $stored))
    (block $done
      (loop $pair
        (br_if $done (i32.eqz (local.get $k)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (local.set $slot (i32.rem_u (i32.add (i32.sub (local.get $newest) (local.get $k)) (local.get $memory)) (local.get $memory)))
        (local.set $b (f64.mul (f64.load (i32.add (local.get $rho) (i32.shl (local.get $slot) (i32.const 3))))
          (call $dot (i32.add (local.get $y) (i32.mul (local.get $slot) (local.get $stride))) (local.get $d) (local.get $n))))
        (call $axpy (f64.sub (f64.load (i32.add (local.get $alphas) (i32.shl (local.get $slot) (i32.const 3)))) (local.get $b))
          (i32.add (local.get $s) (i32.mul (local.get $slot) (local.get $stride))) (local.get $d) (local.get $n))
        (br $pair))))
