"""Per-shape optimum (the reference of the evaluation): a Simplicits-style MLP trained on one shape, its K fields
made exactly orthonormal over the shape's interior points, minimising the elastic energy of that orthonormal
basis (Neo-Hookean, random handle transforms as in training). That is a Rayleigh-Ritz search for the K smoothest
orthonormal fields: the delivered fields have orthogonality ~0 by construction, so the evaluation's objective
reduces to its elastic term.

Why not the network's recipe (elastic + orthogonality combined with ConFIG, Gram ridge 1e-4): per shape it
drifted towards nearly collinear fields (orthogonality 0.14-0.55) whose orthonormalised span looked smooth only
because the ridge damps the directions the fields no longer span. Here everything is float64 and the ridge is 1e-12
of the Gram's trace, so nearly collinear fields make the orthonormal basis rough instead of hiding it.

Reads shapes from a JSON file written by the evaluation, writes the orthonormal fields and their
finite-difference gradients at each shape's evaluation points.

    /usr/bin/python3 models/train/per_shape.py IN.json OUT.json [--steps 3000] [--points 512] [--fields 16] [--threads 2] [--only heldout]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(__file__))
import losses  # noqa: E402

RELATIVE_RIDGE = 1e-12


class FieldMLP(nn.Module):
    def __init__(self, fields, width=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, width), nn.ELU(), nn.Linear(width, width), nn.ELU(),
                                 nn.Linear(width, width), nn.ELU(), nn.Linear(width, fields))

    def forward(self, x):
        return self.net(x)


def orthonormaliser(centre_values):
    """(P, K) raw values at the interior points -> (rms (K,), L (K, K)) with the fields (w / rms) L^-T orthonormal."""
    rms = torch.sqrt((centre_values ** 2).mean(dim=0) + 1e-30)
    w = centre_values / rms
    gram = w.T @ w / w.shape[0]
    k = gram.shape[0]
    gram = gram + RELATIVE_RIDGE * gram.diagonal().mean() * torch.eye(k, dtype=gram.dtype)
    return rms, torch.linalg.cholesky(gram)


def orthonormal_on_stencil(raw, points_count, rms, lower):
    """Raw values on the stencil (7P, K) -> orthonormal fields (P, K) and their gradients (P, K, 3)."""
    k = raw.shape[-1]
    w = (raw / rms).reshape(points_count, 7, k)
    w = torch.linalg.solve_triangular(lower, w.reshape(-1, k).T, upper=False).T.reshape(points_count, 7, k)
    h = losses.STENCIL_STEP
    grad = torch.stack([(w[:, 1 + 2 * a] - w[:, 2 + 2 * a]) / (2 * h) for a in range(3)], dim=-1)
    return w[:, 0], grad


def optimise(interior, fields, steps, seed=0, transforms=16, scale=0.05):
    torch.manual_seed(seed)
    model = FieldMLP(fields).double()
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, steps, eta_min=1e-4)
    pts = torch.from_numpy(interior).double()
    count = pts.shape[0]
    history = []
    for _ in range(steps):
        raw = model(losses.stencil(pts.unsqueeze(0))[0])
        rms, lower = orthonormaliser(raw.reshape(count, 7, fields)[:, 0])
        weights, grads = orthonormal_on_stencil(raw, count, rms, lower)
        t = torch.randn(1, transforms, fields + 1, 3, 4, dtype=torch.float64) * scale
        f = losses.deformation_gradients(pts.unsqueeze(0), weights.unsqueeze(0), grads.unsqueeze(0), t)
        elastic = losses.elastic_energy_density(f, 1.0)
        optimiser.zero_grad()
        elastic.backward()
        optimiser.step()
        schedule.step()
        history.append(elastic.item())
    return model, history


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--points", type=int, default=512, help="interior points the fields are trained on")
    p.add_argument("--fields", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default="", help="comma-separated name prefixes: optimise just those shapes")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    shapes = json.load(open(args.input))
    out = []
    if args.only:
        shapes = [s for s in shapes if any(s["name"].startswith(prefix) for prefix in args.only.split(","))]
    for shape in shapes:
        started = time.time()
        interior = np.array(shape["interior"], dtype=np.float64).reshape(-1, 3)[:args.points]
        model, history = optimise(interior, args.fields, args.steps)
        query = torch.from_numpy(np.array(shape["points"], dtype=np.float64).reshape(-1, 3))
        with torch.no_grad():
            centre = model(torch.from_numpy(interior).double())
            rms, lower = orthonormaliser(centre)
            weights, grads = orthonormal_on_stencil(model(losses.stencil(query.unsqueeze(0))[0]), query.shape[0], rms, lower)
        tail = history[-50:]
        out.append({"name": shape["name"], "weights": weights.reshape(-1).tolist(), "gradients": grads.reshape(-1).tolist(),
                    "steps": args.steps, "seconds": time.time() - started, "history": history[::10],
                    "plateau": float(np.std(tail) / (np.mean(tail) + 1e-12))})
        print(f"{shape['name']}: {time.time() - started:.1f} s, final elastic {np.mean(tail):.4g}", file=sys.stderr, flush=True)
    json.dump(out, open(args.output, "w"))


if __name__ == "__main__":
    main()
