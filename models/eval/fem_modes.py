#!/usr/bin/env python3
"""Reference free-free natural frequencies of a solid by full finite elements, for `npm run eval:modes --fem`.

Quadratic tetrahedra (10 nodes; linear ones from Debian's tetgen, or from a voxel grid when tetgen cannot mesh the
surface, each split into 6 conforming tets), linear isotropic elasticity, consistent mass, and a sparse
shift-invert eigensolve (scipy). When asked, it also returns the mesh's quadrature points, at which the caller
integrates skinning fields exactly (server/modes/exact-fields.ts).

Input (JSON on the path given as the only argument):
  {"E", "nu", "rho", "modes", "maxTets",
   "off": path to the surface (metres) or null, "voxels": {"dims": [nx, ny, nz], "origin": [3], "spacing": h,
   "inside": [0/1 * nx*ny*nz, x fastest]} or null}
Output (JSON on stdout): {"tets", "nodes", "frequenciesHz", "nearZero", "seconds", "mesher": "tetgen" | "voxels",
  "points": quadrature points (metres, 3 per point) and "volumes" (one per point) when "quadrature" is asked}.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

# Edges of a tetrahedron (corner pairs) in the order their midpoints follow the corners.
EDGES = ((0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3))
# Degree-2 rule (exact for the stiffness of quadratic tets): barycentric points, weights as shares of the volume.
_A, _B = 0.5854101966249685, 0.1381966011250105
QUAD_POINTS = np.array([[_A, _B, _B, _B], [_B, _A, _B, _B], [_B, _B, _A, _B], [_B, _B, _B, _A]])
QUAD_WEIGHTS = np.full(4, 0.25)


def run_tetgen(path, switches):
    """Linear tets from tetgen with these switches, or None when it fails."""
    base = path[:-4] + ".1"
    for ext in (".node", ".ele", ".face", ".edge"):
        if os.path.exists(base + ext):
            os.remove(base + ext)
    try:
        subprocess.run(["tetgen", switches, path], check=True, capture_output=True, timeout=600)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, FileNotFoundError):
        return None
    if not os.path.exists(base + ".ele"):
        return None
    node_table = np.loadtxt(base + ".node", skiprows=1, comments="#", ndmin=2)
    tets = np.loadtxt(base + ".ele", skiprows=1, comments="#", ndmin=2, dtype=np.int64)[:, 1:5]
    first = int(node_table[0, 0])  # tetgen numbers from 0 or 1, as the input did
    return node_table[:, 1:4], tets - first


def tetgen_mesh(off_path, volume, max_tets):
    """Linear tets of the solid bounded by the surface (at most about max_tets unless the surface needs more), or
    None when tetgen cannot mesh it or it would need far more."""
    with tempfile.TemporaryDirectory() as work:
        target = os.path.join(work, "solid.off")
        with open(off_path) as src, open(target, "w") as dst:
            dst.write(src.read())
        # The surface's own constrained Delaunay mesh first: a fine surface already makes many tets.
        mesh = run_tetgen(target, "-pQ")
        if mesh is None or len(mesh[1]) > 4 * max_tets:
            return None
        if len(mesh[1]) < max_tets // 2:
            # Room for quality: refine (radius-edge 1.4) down to the volume share of max_tets.
            refined = run_tetgen(target, f"-pq1.4a{volume / max_tets:.6g}Q")
            if refined is not None and len(refined[1]) <= 4 * max_tets:
                mesh = refined
        return mesh


def voxel_mesh(voxels):
    """Six conforming tets per inside voxel of the largest face-connected component."""
    from scipy import ndimage

    nx, ny, nz = voxels["dims"]
    inside = np.array(voxels["inside"], dtype=bool).reshape(nz, ny, nx)
    labels, count = ndimage.label(inside)
    if count > 1:
        sizes = ndimage.sum(inside, labels, range(1, count + 1))
        inside = labels == (1 + int(np.argmax(sizes)))
    h, origin = voxels["spacing"], np.array(voxels["origin"], dtype=float)
    kk, jj, ii = np.nonzero(inside)
    # Corner (di, dj, dk) of voxel (i, j, k) is grid node (i + di, j + dj, k + dk).
    corner = lambda di, dj, dk: ((kk + dk) * (ny + 1) + (jj + dj)) * (nx + 1) + (ii + di)
    c = [corner(di, dj, dk) for dk in (0, 1) for dj in (0, 1) for di in (0, 1)]  # c[di + 2 dj + 4 dk]
    # Kuhn split along the 0-7 diagonal: conforming across neighbouring voxels.
    paths = ((1, 3), (1, 5), (2, 3), (2, 6), (4, 5), (4, 6))
    tets = np.concatenate([np.stack([c[0], c[a], c[b], c[7]], axis=1) for a, b in paths])
    used, tets = np.unique(tets, return_inverse=True)
    tets = tets.reshape(-1, 4)
    gi = used % (nx + 1)
    gj = (used // (nx + 1)) % (ny + 1)
    gk = used // ((nx + 1) * (ny + 1))
    nodes = origin + h * np.stack([gi, gj, gk], axis=1).astype(float)
    return nodes, tets


def quadratic(nodes, tets):
    """Adds edge midpoints: 10-node tets (corners, then EDGES)."""
    pairs = np.concatenate([np.sort(tets[:, list(e)], axis=1) for e in EDGES])
    unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
    mid = 0.5 * (nodes[unique[:, 0]] + nodes[unique[:, 1]])
    edge_nodes = (len(nodes) + inverse.reshape(len(EDGES), -1).T)
    return np.concatenate([nodes, mid]), np.concatenate([tets, edge_nodes], axis=1)


def oriented(nodes, tets):
    d = nodes[tets[:, 1:4]] - nodes[tets[:, [0]]]
    volume6 = np.einsum("ei,ei->e", d[:, 0], np.cross(d[:, 1], d[:, 2]))
    flip = volume6 < 0
    tets = tets.copy()
    tets[flip, 1], tets[flip, 2] = tets[flip, 2], tets[flip, 1].copy()
    keep = np.abs(volume6) > 1e-14 * np.abs(volume6).max()
    return tets[keep]


def shape_at(l):
    """Quadratic shape functions (10) and their derivatives by the 4 barycentric coordinates (10 x 4) at l."""
    n = np.empty(10)
    dn = np.zeros((10, 4))
    for i in range(4):
        n[i] = l[i] * (2 * l[i] - 1)
        dn[i, i] = 4 * l[i] - 1
    for k, (i, j) in enumerate(EDGES):
        n[4 + k] = 4 * l[i] * l[j]
        dn[4 + k, i] = 4 * l[j]
        dn[4 + k, j] = 4 * l[i]
    return n, dn


def reference_mass():
    """Integral of N_i N_j over the reference tet, as a share of its volume (exact: quartic in barycentrics)."""
    from math import factorial

    def poly(i):
        # Each shape function as {exponents (4): coefficient}.
        if i < 4:
            e2 = [0, 0, 0, 0]; e2[i] = 2
            e1 = [0, 0, 0, 0]; e1[i] = 1
            return {tuple(e2): 2.0, tuple(e1): -1.0}
        a, b = EDGES[i - 4]
        e = [0, 0, 0, 0]; e[a] += 1; e[b] += 1
        return {tuple(e): 4.0}

    def integral(exponents):  # over a tet of volume 1
        return 6 * np.prod([factorial(x) for x in exponents]) / factorial(sum(exponents) + 3)

    m = np.zeros((10, 10))
    for i in range(10):
        for j in range(10):
            for ea, ca in poly(i).items():
                for eb, cb in poly(j).items():
                    m[i, j] += ca * cb * integral(tuple(x + y for x, y in zip(ea, eb)))
    return m


def gradients(nodes, tets):
    """Per element: volume, and the quadratic shape functions' gradients at the 4 quadrature points (E x 4 x 10 x 3)."""
    x = nodes[tets[:, :4]]
    j = np.stack([x[:, 1] - x[:, 0], x[:, 2] - x[:, 0], x[:, 3] - x[:, 0]], axis=2)  # E x 3 x 3, columns
    volume = np.linalg.det(j) / 6
    jinv = np.linalg.inv(j)  # rows: grad of L1, L2, L3
    grad_l = np.concatenate([-jinv.sum(axis=1, keepdims=True), jinv], axis=1)  # E x 4 x 3
    g = np.empty((len(tets), 4, 10, 3))
    for q, l in enumerate(QUAD_POINTS):
        _, dn = shape_at(l)
        g[:, q] = np.einsum("ik,ekc->eic", dn, grad_l)
    return volume, g


def assemble(nodes, tets, e_mod, nu, rho):
    mu = e_mod / (2 * (1 + nu))
    lam = e_mod * nu / ((1 + nu) * (1 - 2 * nu))
    volume, g = gradients(nodes, tets)
    w = volume[:, None] * QUAD_WEIGHTS[None, :]
    ndof = 3 * len(nodes)
    dof = (3 * tets[:, :, None] + np.arange(3)[None, None, :]).reshape(len(tets), 30)
    rows, cols, vals = [], [], []
    for start in range(0, len(tets), 4000):
        sl = slice(start, start + 4000)
        gs, ws = g[sl], w[sl]
        gw = gs * ws[:, :, None, None]
        dd = np.einsum("eqic,eqjc->eij", gw, gs)  # grad . grad
        ke = mu * np.einsum("eij,ab->eiajb", dd, np.eye(3))
        ke += mu * np.einsum("eqib,eqja->eiajb", gw, gs)
        ke += lam * np.einsum("eqia,eqjb->eiajb", gw, gs)
        ke = ke.reshape(-1, 30, 30)
        d = dof[sl]
        rows.append(np.repeat(d, 30, axis=1).ravel())
        cols.append(np.tile(d, (1, 30)).ravel())
        vals.append(ke.ravel())
    k = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(ndof, ndof)).tocsc()
    mref = reference_mass()
    me = rho * volume[:, None, None] * mref[None]
    scalar = sp.coo_matrix((me.ravel(), (np.repeat(tets, 10, axis=1).ravel(), np.tile(tets, (1, 10)).ravel())), shape=(len(nodes), len(nodes))).tocsc()
    m = sp.kron(scalar, sp.eye(3), format="csc")
    return k, m


def lowest(k, m, count):
    """The `count` lowest eigenvalues of K x = w^2 M x (free-free: shift below zero)."""
    scale = abs(k.diagonal()).mean() / abs(m.diagonal()).mean()
    sigma = -1e-4 * scale
    # The shifted stiffness is symmetric positive definite: a minimum-degree ordering of A + A^T with diagonal
    # pivots fills in far less than SuperLU's default column ordering (spot: 4x faster).
    lu = sla.splu((k - sigma * m).tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                  options={"SymmetricMode": True})
    opinv = sla.LinearOperator(k.shape, matvec=lu.solve, dtype=float)
    values = sla.eigsh(k, k=count, M=m, sigma=sigma, which="LM", OPinv=opinv, return_eigenvectors=False)
    return np.sort(values)


def split_rigid(values):
    top = np.abs(values).max()
    # Rigid modes sit at rounding level; the first elastic one is many orders above.
    rigid = values < 1e-6 * max(top, 1e-300)
    return int(rigid.sum()), [float(np.sqrt(max(v, 0)) / (2 * np.pi)) for v in values[~rigid]]


def quadrature(nodes, tets):
    """Quadrature points (4 per tet, metres) and their volumes."""
    x = nodes[tets[:, :4]]
    volume, _ = gradients(nodes, tets)
    points = np.einsum("qk,ekc->eqc", QUAD_POINTS, x).reshape(-1, 3)
    return points, np.repeat(volume * 0.25, 4)


def main():
    spec = json.load(open(sys.argv[1]))
    started = time.time()
    mesh = None
    mesher = "tetgen"
    if spec.get("off"):
        mesh = tetgen_mesh(spec["off"], float(spec["volume"]), int(spec["maxTets"]))
    if mesh is None:
        if not spec.get("voxels"):
            raise SystemExit("tetgen could not mesh the surface and no voxel grid was given")
        mesher = "voxels"
        mesh = voxel_mesh(spec["voxels"])
    nodes, tets = mesh
    tets = oriented(nodes, tets)
    nodes, tets = quadratic(nodes, tets)
    k, m = assemble(nodes, tets, spec["E"], spec["nu"], spec["rho"])
    near_zero, freqs = split_rigid(lowest(k, m, 6 + spec["modes"]))
    out = {"mesher": mesher, "tets": int(len(tets)), "nodes": int(len(nodes)), "nearZero": near_zero,
           "frequenciesHz": freqs[: spec["modes"]], "seconds": time.time() - started}
    if spec.get("quadrature"):
        points, volumes = quadrature(nodes, tets)
        out["points"] = points.ravel().tolist()
        out["volumes"] = volumes.tolist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
