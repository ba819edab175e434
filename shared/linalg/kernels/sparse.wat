;; A symmetric sparse matrix times a block of vectors in WebAssembly SIMD (f64x2), for the Rayleigh-Ritz finish's
;; Chebyshev filter and projections (rayleigh-ritz.ts, stiffnessTimesBlock): the same sums as the JS loop, two
;; vectors of the block a lane pair. Every address is a byte offset into the instance's memory (sparse-kernels.ts
;; lays it out, 16-byte aligned). `npm run build:kernels` compiles this file into sparse-wasm.ts.
;;
;; symmetricProduct: y = K x, K's upper triangle by columns (start: n + 1 i32 offsets, rows: i32, values: f64), x and
;; y node-major blocks of p vectors (p even): x[i p + c] is vector c's entry i.
(module
  (memory (export "memory") 1)
  (func (export "symmetricProduct") (param $n i32) (param $p i32) (param $start i32) (param $rows i32) (param $values i32) (param $x i32) (param $y i32)
    (local $j i32) (local $at i32) (local $end i32) (local $i i32) (local $rowBytes i32)
    (local $xj i32) (local $yj i32) (local $xi i32) (local $yi i32) (local $c i32) (local $v v128)
    (local.set $rowBytes (i32.shl (local.get $p) (i32.const 3)))
    (memory.fill (local.get $y) (i32.const 0) (i32.mul (local.get $n) (local.get $rowBytes)))
    (local.set $j (i32.const 0))
    (block $columnsDone
      (loop $column
        (br_if $columnsDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $xj (i32.add (local.get $x) (i32.mul (local.get $j) (local.get $rowBytes))))
        (local.set $yj (i32.add (local.get $y) (i32.mul (local.get $j) (local.get $rowBytes))))
        (local.set $at (i32.load (i32.add (local.get $start) (i32.shl (local.get $j) (i32.const 2)))))
        (local.set $end (i32.load offset=4 (i32.add (local.get $start) (i32.shl (local.get $j) (i32.const 2)))))
        (block $entriesDone
          (loop $entry
            (br_if $entriesDone (i32.ge_u (local.get $at) (local.get $end)))
            (local.set $i (i32.load (i32.add (local.get $rows) (i32.shl (local.get $at) (i32.const 2)))))
            (local.set $v (v128.load64_splat (i32.add (local.get $values) (i32.shl (local.get $at) (i32.const 3)))))
            (local.set $c (i32.const 0))
            (if (i32.eq (local.get $i) (local.get $j))
              (then
                (block $diagonalDone
                  (loop $diagonal
                    (br_if $diagonalDone (i32.ge_u (local.get $c) (local.get $rowBytes)))
                    (v128.store (i32.add (local.get $yj) (local.get $c))
                      (f64x2.add (v128.load (i32.add (local.get $yj) (local.get $c)))
                        (f64x2.mul (local.get $v) (v128.load (i32.add (local.get $xj) (local.get $c))))))
                    (local.set $c (i32.add (local.get $c) (i32.const 16)))
                    (br $diagonal))))
              (else
                (local.set $xi (i32.add (local.get $x) (i32.mul (local.get $i) (local.get $rowBytes))))
                (local.set $yi (i32.add (local.get $y) (i32.mul (local.get $i) (local.get $rowBytes))))
                (block $pairDone
                  (loop $pair
                    (br_if $pairDone (i32.ge_u (local.get $c) (local.get $rowBytes)))
                    (v128.store (i32.add (local.get $yi) (local.get $c))
                      (f64x2.add (v128.load (i32.add (local.get $yi) (local.get $c)))
                        (f64x2.mul (local.get $v) (v128.load (i32.add (local.get $xj) (local.get $c))))))
                    (v128.store (i32.add (local.get $yj) (local.get $c))
                      (f64x2.add (v128.load (i32.add (local.get $yj) (local.get $c)))
                        (f64x2.mul (local.get $v) (v128.load (i32.add (local.get $xi) (local.get $c))))))
                    (local.set $c (i32.add (local.get $c) (i32.const 16)))
                    (br $pair)))))
            (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (br $entry)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $column)))))
