;; Dense Gram products in WebAssembly SIMD (f64x2), for dense-blocks.ts's columnGram: every sum of a tile is the
;; JS loop's, term by term in the same order (each lane one entry of the product, no fused multiply-add), so the
;; result is the same to the last bit, two entries an instruction. Every address is a byte offset into the instance's
;; memory (dense-kernels.ts lays it out, 16-byte aligned). `npm run build:kernels` compiles this file into
;; dense-wasm.ts.
;;
;; gramTiles: a holds aCount columns and b bCount, each `length` f64, contiguous. For every tile of four columns of a
;; (r .. r + 3) by four of b (c .. c + 3), from c = r's tile on when `symmetric`, the sixteen sums
;; sum_i a[r + x][i] b[c + y][i] go to out + 128 (tr tilesB + tc) + 8 (4 x + y), tilesB = ceil(bCount / 4). Columns past
;; the last repeat it (as the JS tiles do); their sums are not used.
(module
  (memory (export "memory") 1)
  (func $column (param $base i32) (param $index i32) (param $count i32) (param $columnBytes i32) (result i32)
    (i32.add (local.get $base)
      (i32.mul (select (local.get $index) (i32.sub (local.get $count) (i32.const 1)) (i32.lt_u (local.get $index) (local.get $count))) (local.get $columnBytes))))
  (func (export "gramTiles") (param $a i32) (param $aCount i32) (param $b i32) (param $bCount i32) (param $length i32) (param $symmetric i32) (param $out i32)
    (local $columnBytes i32) (local $tilesA i32) (local $tilesB i32) (local $tr i32) (local $tc i32) (local $o i32) (local $tile i32)
    (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $a3 i32) (local $b0 i32) (local $b1 i32) (local $b2 i32) (local $b3 i32)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128) (local $y01 v128) (local $y23 v128)
    (local $s00 v128) (local $s01 v128) (local $s10 v128) (local $s11 v128) (local $s20 v128) (local $s21 v128) (local $s30 v128) (local $s31 v128)
    (local.set $columnBytes (i32.shl (local.get $length) (i32.const 3)))
    (local.set $tilesA (i32.shr_u (i32.add (local.get $aCount) (i32.const 3)) (i32.const 2)))
    (local.set $tilesB (i32.shr_u (i32.add (local.get $bCount) (i32.const 3)) (i32.const 2)))
    (local.set $tr (i32.const 0))
    (block $rowsDone
      (loop $rowTile
        (br_if $rowsDone (i32.ge_u (local.get $tr) (local.get $tilesA)))
        (local.set $a0 (call $column (local.get $a) (i32.shl (local.get $tr) (i32.const 2)) (local.get $aCount) (local.get $columnBytes)))
        (local.set $a1 (call $column (local.get $a) (i32.add (i32.shl (local.get $tr) (i32.const 2)) (i32.const 1)) (local.get $aCount) (local.get $columnBytes)))
        (local.set $a2 (call $column (local.get $a) (i32.add (i32.shl (local.get $tr) (i32.const 2)) (i32.const 2)) (local.get $aCount) (local.get $columnBytes)))
        (local.set $a3 (call $column (local.get $a) (i32.add (i32.shl (local.get $tr) (i32.const 2)) (i32.const 3)) (local.get $aCount) (local.get $columnBytes)))
        (local.set $tc (select (local.get $tr) (i32.const 0) (local.get $symmetric)))
        (block $columnsDone
          (loop $columnTile
            (br_if $columnsDone (i32.ge_u (local.get $tc) (local.get $tilesB)))
            (local.set $b0 (call $column (local.get $b) (i32.shl (local.get $tc) (i32.const 2)) (local.get $bCount) (local.get $columnBytes)))
            (local.set $b1 (call $column (local.get $b) (i32.add (i32.shl (local.get $tc) (i32.const 2)) (i32.const 1)) (local.get $bCount) (local.get $columnBytes)))
            (local.set $b2 (call $column (local.get $b) (i32.add (i32.shl (local.get $tc) (i32.const 2)) (i32.const 2)) (local.get $bCount) (local.get $columnBytes)))
            (local.set $b3 (call $column (local.get $b) (i32.add (i32.shl (local.get $tc) (i32.const 2)) (i32.const 3)) (local.get $bCount) (local.get $columnBytes)))
            (local.set $s00 (v128.const i32x4 0 0 0 0)) (local.set $s01 (v128.const i32x4 0 0 0 0))
            (local.set $s10 (v128.const i32x4 0 0 0 0)) (local.set $s11 (v128.const i32x4 0 0 0 0))
            (local.set $s20 (v128.const i32x4 0 0 0 0)) (local.set $s21 (v128.const i32x4 0 0 0 0))
            (local.set $s30 (v128.const i32x4 0 0 0 0)) (local.set $s31 (v128.const i32x4 0 0 0 0))
            (local.set $o (i32.const 0))
            (block $summed
              (loop $entry
                (br_if $summed (i32.ge_u (local.get $o) (local.get $columnBytes)))
                (local.set $x0 (v128.load64_splat (i32.add (local.get $a0) (local.get $o))))
                (local.set $x1 (v128.load64_splat (i32.add (local.get $a1) (local.get $o))))
                (local.set $x2 (v128.load64_splat (i32.add (local.get $a2) (local.get $o))))
                (local.set $x3 (v128.load64_splat (i32.add (local.get $a3) (local.get $o))))
                (local.set $y01 (v128.load64_lane 1 (i32.add (local.get $b1) (local.get $o)) (v128.load64_splat (i32.add (local.get $b0) (local.get $o)))))
                (local.set $y23 (v128.load64_lane 1 (i32.add (local.get $b3) (local.get $o)) (v128.load64_splat (i32.add (local.get $b2) (local.get $o)))))
                (local.set $s00 (f64x2.add (local.get $s00) (f64x2.mul (local.get $x0) (local.get $y01))))
                (local.set $s01 (f64x2.add (local.get $s01) (f64x2.mul (local.get $x0) (local.get $y23))))
                (local.set $s10 (f64x2.add (local.get $s10) (f64x2.mul (local.get $x1) (local.get $y01))))
                (local.set $s11 (f64x2.add (local.get $s11) (f64x2.mul (local.get $x1) (local.get $y23))))
                (local.set $s20 (f64x2.add (local.get $s20) (f64x2.mul (local.get $x2) (local.get $y01))))
                (local.set $s21 (f64x2.add (local.get $s21) (f64x2.mul (local.get $x2) (local.get $y23))))
                (local.set $s30 (f64x2.add (local.get $s30) (f64x2.mul (local.get $x3) (local.get $y01))))
                (local.set $s31 (f64x2.add (local.get $s31) (f64x2.mul (local.get $x3) (local.get $y23))))
                (local.set $o (i32.add (local.get $o) (i32.const 8)))
                (br $entry)))
            (local.set $tile (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $tr) (local.get $tilesB)) (local.get $tc)) (i32.const 7))))
            (v128.store (local.get $tile) (local.get $s00))
            (v128.store offset=16 (local.get $tile) (local.get $s01))
            (v128.store offset=32 (local.get $tile) (local.get $s10))
            (v128.store offset=48 (local.get $tile) (local.get $s11))
            (v128.store offset=64 (local.get $tile) (local.get $s20))
            (v128.store offset=80 (local.get $tile) (local.get $s21))
            (v128.store offset=96 (local.get $tile) (local.get $s30))
            (v128.store offset=112 (local.get $tile) (local.get $s31))
            (local.set $tc (i32.add (local.get $tc) (i32.const 1)))
            (br $columnTile)))
        (local.set $tr (i32.add (local.get $tr) (i32.const 1)))
        (br $rowTile))));; transpose: dst (width columns of `rows` f64, contiguous) from src (rows x width, row-major), each entry times
;; scale[row] when `scale` is not 0 (no product otherwise, as 1 x is x). By eight rows at a time, so that the
;; writes to each column land in one cache line (dense-blocks.ts's transposed, whose values these are).
  (func (export "transpose") (param $src i32) (param $rows i32) (param $width i32) (param $scale i32) (param $dst i32)
    (local $first i32) (local $last i32) (local $c i32) (local $i i32) (local $x f64) (local $rowBytes i32) (local $columnBytes i32)
    (local.set $rowBytes (i32.shl (local.get $width) (i32.const 3)))
    (local.set $columnBytes (i32.shl (local.get $rows) (i32.const 3)))
    (local.set $first (i32.const 0))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $first) (local.get $rows)))
        (local.set $last (select (i32.add (local.get $first) (i32.const 8)) (local.get $rows)
          (i32.lt_u (i32.add (local.get $first) (i32.const 8)) (local.get $rows))))
        (local.set $c (i32.const 0))
        (block $columnsDone
          (loop $column
            (br_if $columnsDone (i32.ge_u (local.get $c) (local.get $width)))
            (local.set $i (local.get $first))
            (block $rowsDone
              (loop $row
                (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $last)))
                (local.set $x (f64.load (i32.add (local.get $src) (i32.add (i32.mul (local.get $i) (local.get $rowBytes)) (i32.shl (local.get $c) (i32.const 3))))))
                (if (local.get $scale)
                  (then (local.set $x (f64.mul (f64.load (i32.add (local.get $scale) (i32.shl (local.get $i) (i32.const 3)))) (local.get $x)))))
                (f64.store (i32.add (local.get $dst) (i32.add (i32.mul (local.get $c) (local.get $columnBytes)) (i32.shl (local.get $i) (i32.const 3)))) (local.get $x))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $row)))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $column)))
        (local.set $first (local.get $last))
        (br $block))))
)
