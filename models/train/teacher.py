"""Teacher fields for distillation: the skinning eigenmodes of every training shape, by the same operator as the
bake's eigen provider (shared/skinning/eigen.ts, voxel-solid.ts): the K lowest non-constant Neumann eigenfunctions
of the Laplacian on a voxel grid of the solid (trilinear cells whose centre, or all eight corners, are inside,
each weighted 0.5 + corners inside / 16, largest 26-connected piece, lumped mass), solved with scipy's
shift-invert Lanczos and read at the shape's interior sample points.

    /usr/bin/python3 models/train/teacher.py [--shapes 2000] [--jobs 2]   # cached in runs/shipped, resumable

Shape i's teacher depends only on (seed, i), like the shape itself.
"""
import argparse
import multiprocessing
import os
import sys
import time

import numpy as np
import scipy.ndimage
import scipy.sparse
import scipy.sparse.linalg

sys.path.insert(0, os.path.dirname(__file__))
import shapes  # noqa: E402

TARGET_CELLS = 6000  # EIGEN_DEFAULTS.targetCells
MAX_CELLS_PER_AXIS = 128  # EIGEN_DEFAULTS.maxCellsPerAxis
SHIFT = -1.0  # below the constant mode's 0: K - SHIFT M is positive definite
CHUNK = 100  # shapes per cache file, so an interrupted run loses at most one chunk


def _reference_laplacian():
    """The 8 x 8 trilinear element Laplacian of the unit cube (2-point Gauss), corners in x-fastest order."""
    corners = np.array([[i, j, k] for k in (0, 1) for j in (0, 1) for i in (0, 1)], dtype=np.float64)
    gauss = (1 + np.array([-1, 1]) / np.sqrt(3)) / 2
    k = np.zeros((8, 8))
    for x in gauss:
        for y in gauss:
            for z in gauss:
                p = np.array([x, y, z])
                grads = np.zeros((8, 3))
                for c, corner in enumerate(corners):
                    factors = np.where(corner == 1, p, 1 - p)
                    signs = np.where(corner == 1, 1.0, -1.0)
                    for a in range(3):
                        grads[c, a] = signs[a] * np.prod(np.delete(factors, a))
                k += grads @ grads.T / 8
    return corners.astype(np.int64), k


CORNERS, K_REF = _reference_laplacian()


def _active_cells(inside, lo, h, cells):
    """Cell membership and weights as voxel-solid.ts: centre inside or all corners inside; weight 0.5 + c / 16."""
    axes = [lo[a] + h * np.arange(cells[a] + 1) for a in range(3)]
    nodes = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    node_inside = inside(nodes).reshape(cells[0] + 1, cells[1] + 1, cells[2] + 1)
    centres = np.stack(np.meshgrid(*[a[:-1] + h / 2 for a in axes], indexing="ij"), axis=-1).reshape(-1, 3)
    centre_inside = inside(centres).reshape(cells)
    count = sum(node_inside[i:i + cells[0], j:j + cells[1], k:k + cells[2]].astype(np.int64)
                for i, j, k in CORNERS)
    active = centre_inside | (count == 8)
    labels, pieces = scipy.ndimage.label(active, structure=np.ones((3, 3, 3)))
    if pieces > 1:
        sizes = np.bincount(labels.ravel())[1:]
        active = labels == 1 + int(np.argmax(sizes))
    return active, 0.5 + count / 16


def voxel_solid(inside, lo, hi, target=TARGET_CELLS):
    """Grid frame, stiffness (unknowns x unknowns), lumped mass and each node's unknown (-1 if none)."""
    extent = hi - lo
    probe = 24
    axes = [lo[a] + extent[a] * (np.arange(probe) + 0.5) / probe for a in range(3)]
    fraction = inside(np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)).mean()
    h = max((max(fraction, 1e-3) * np.prod(extent) / target) ** (1 / 3), extent.max() / MAX_CELLS_PER_AXIS)
    for _ in range(4):  # thin parts: refine until the solid has about the cells asked for
        cells = np.maximum(1, np.ceil(extent / h).astype(np.int64))
        active, weight = _active_cells(inside, lo, h, tuple(cells))
        if active.sum() >= 0.6 * target or cells.max() >= MAX_CELLS_PER_AXIS:
            break
        h = max(h * (active.sum() / target) ** (1 / 3), extent.max() / MAX_CELLS_PER_AXIS)
    n = cells + 1
    ci, cj, ck = np.nonzero(active)
    w = weight[ci, cj, ck]
    corner_nodes = np.stack([(ci + i) + n[0] * ((cj + j) + n[1] * (ck + k)) for i, j, k in CORNERS], axis=1)
    used = np.unique(corner_nodes)
    unknown_of = -np.ones(np.prod(n), dtype=np.int64)
    unknown_of[used] = np.arange(len(used))
    u = unknown_of[corner_nodes]
    rows = np.repeat(u, 8, axis=1).ravel()
    cols = np.tile(u, (1, 8)).ravel()
    vals = (w[:, None, None] * h * K_REF[None]).ravel()
    stiffness = scipy.sparse.csc_matrix((vals, (rows, cols)), shape=(len(used), len(used)))
    mass = np.bincount(u.ravel(), weights=np.repeat(w * h ** 3 / 8, 8), minlength=len(used))
    return {"lo": lo, "h": h, "cells": cells, "unknown_of": unknown_of, "stiffness": stiffness, "mass": mass}


def eigenmodes(solid, count):
    """The `count` lowest non-constant eigenpairs (mass-orthonormal), ascending."""
    m = scipy.sparse.diags(solid["mass"])
    # A symmetric ordering and diagonal pivots factor this SPD matrix several times faster than splu's defaults.
    factor = scipy.sparse.linalg.splu((solid["stiffness"] - SHIFT * m).tocsc(), permc_spec="MMD_AT_PLUS_A",
                                      diag_pivot_thresh=0, options={"SymmetricMode": True})
    inverse = scipy.sparse.linalg.LinearOperator(m.shape, matvec=factor.solve, dtype=np.float64)
    values, vectors = scipy.sparse.linalg.eigsh(solid["stiffness"], k=count + 1, M=m, sigma=SHIFT, which="LM", OPinv=inverse)
    order = np.argsort(values)
    return values[order][1:], vectors[:, order][:, 1:]


def _fill_outwards(values, known, n):
    """Nodes without a value take the mean of their known face neighbours, one layer at a time (grid-fields.ts)."""
    grid = values.reshape(n[2], n[1], n[0], -1).copy()
    mask = known.reshape(n[2], n[1], n[0]).copy()
    for _ in range(int(n.max())):
        if mask.all():
            break
        total = np.zeros_like(grid)
        hits = np.zeros(mask.shape)
        for axis in range(3):
            for step in (1, -1):
                shifted_mask = np.roll(mask, step, axis=axis)
                shifted = np.roll(grid, step, axis=axis)
                edge = [slice(None)] * 3
                edge[axis] = 0 if step == 1 else -1
                shifted_mask[tuple(edge)] = False
                total += np.where(shifted_mask[..., None], shifted, 0)
                hits += shifted_mask
        grow = ~mask & (hits > 0)
        grid[grow] = total[grow] / hits[grow][:, None]
        mask = mask | grow
    return grid


def trilinear(grid, lo, h, points):
    """Values of node grid (nz+1, ny+1, nx+1, F) at points (P, 3)."""
    n = np.array(grid.shape[:3][::-1])
    t = np.clip((points - lo) / h, 0, n - 1 - 1e-9)
    i = np.floor(t).astype(np.int64)
    f = t - i
    out = 0
    for a, b, c in CORNERS:
        wgt = (np.where(a, f[:, 0], 1 - f[:, 0]) * np.where(b, f[:, 1], 1 - f[:, 1]) * np.where(c, f[:, 2], 1 - f[:, 2]))
        out = out + wgt[:, None] * grid[i[:, 2] + c, i[:, 1] + b, i[:, 0] + a]
    return out


def teacher_for(index, seed=0, count=16):
    """(interior points' teacher values (P, count) float32, eigenvalues (count,)) of training shape `index`."""
    shape = shapes.sample_shape(index, seed=seed, with_sdf=True)
    inside = lambda p: shape["sdf"](p) < 0  # noqa: E731
    lo = shape["surface"].min(0).astype(np.float64)
    hi = shape["surface"].max(0).astype(np.float64)
    pad = 0.02 * (hi - lo).max()
    solid = voxel_solid(inside, lo - pad, hi + pad)
    values, vectors = eigenmodes(solid, count)
    n = solid["cells"] + 1
    full = np.zeros((np.prod(n), count))
    known = solid["unknown_of"] >= 0
    full[known] = vectors[solid["unknown_of"][known]]
    grid = _fill_outwards(full, known, n)
    return trilinear(grid, solid["lo"], solid["h"], shape["interior"].astype(np.float64)).astype(np.float32), values


def _chunk_path(out, seed, count, chunk):
    return os.path.join(out, f"teacher-{seed}-{count}-{chunk[0]}-{chunk[-1]}.npz")


def _make_chunk(job):
    """Solves one chunk's teachers and writes its cache file (a worker process's task)."""
    out, seed, count, chunk = job
    path = _chunk_path(out, seed, count, chunk)
    pairs = [teacher_for(i, seed, count) for i in chunk]
    np.savez(path + ".tmp.npz", values=np.stack([p[0] for p in pairs]), eigenvalues=np.stack([p[1] for p in pairs]))
    os.replace(path + ".tmp.npz", path)
    return len(chunk)


def build_teachers(indices, out, seed=0, count=16, log=print, jobs=1):
    """Teachers for `indices` (cached per chunk under `out`, the missing chunks solved by `jobs` processes):
    (N, P, count) values and (N, count) eigenvalues."""
    os.makedirs(out, exist_ok=True)
    indices = list(indices)
    chunks = [indices[c:c + CHUNK] for c in range(0, len(indices), CHUNK)]
    missing = [(out, seed, count, chunk) for chunk in chunks if not os.path.exists(_chunk_path(out, seed, count, chunk))]
    started, done = time.time(), len(indices) - sum(len(job[3]) for job in missing)
    if missing:
        with multiprocessing.Pool(max(1, jobs)) as pool:
            for made in pool.imap_unordered(_make_chunk, missing):
                done += made
                log(f"teachers {done}/{len(indices)} ({time.time() - started:.0f} s)")
    values, eigen = [], []
    for chunk in chunks:
        data = np.load(_chunk_path(out, seed, count, chunk))
        values.append(data["values"])
        eigen.append(data["eigenvalues"])
    return np.concatenate(values), np.concatenate(eigen)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", type=int, default=2000, help="training shapes (indices 0..N-1), as train.py's default")
    p.add_argument("--jobs", type=int, default=2, help="processes solving chunks at once")
    p.add_argument("--fields", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "runs", "shipped"))
    args = p.parse_args(argv)
    build_teachers(range(args.shapes), args.out, args.seed, args.fields, log=lambda s: print(s, flush=True), jobs=args.jobs)


if __name__ == "__main__":
    main()
