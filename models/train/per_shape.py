"""Per-shape optimum (the reference of the evaluation): a Simplicits-style MLP trained on one shape with the same
losses as the network (elastic on the orthonormalised fields + orthogonality, combined with ConFIG), until the
objective stops improving. Reads shapes from a JSON file written by the evaluation, writes raw fields and their
finite-difference gradients at each shape's evaluation points.

    /usr/bin/python3 models/train/per_shape.py IN.json OUT.json [--steps 1500]
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


class FieldMLP(nn.Module):
    def __init__(self, fields, width=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, width), nn.ELU(), nn.Linear(width, width), nn.ELU(),
                                 nn.Linear(width, width), nn.ELU(), nn.Linear(width, fields))

    def forward(self, x):
        return self.net(x)


def optimise(interior, fields, steps, seed=0, transforms=32, scale=0.05):
    torch.manual_seed(seed)
    model = FieldMLP(fields)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    pts = torch.from_numpy(interior).unsqueeze(0)
    params = list(model.parameters())
    history = []
    for step in range(steps):
        raw = model(losses.stencil(pts))
        normalised, basis, grads = losses.fields_and_gradients(raw, pts.shape[1])
        t = torch.randn(1, transforms, fields + 1, 3, 4) * scale
        elastic = losses.elastic_energy_density(losses.deformation_gradients(pts, basis, grads, t), 1.0)
        ortho = losses.orthogonality(normalised)
        g1 = torch.autograd.grad(elastic, params, retain_graph=True)
        g2 = torch.autograd.grad(ortho, params)
        d = losses.config_direction(torch.cat([g.reshape(-1) for g in g1]), torch.cat([g.reshape(-1) for g in g2]))
        offset = 0
        for p in params:
            p.grad = d[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()
        optimiser.step()
        history.append(elastic.item())
    return model, history


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--fields", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    shapes = json.load(open(args.input))
    out = []
    for i, shape in enumerate(shapes):
        started = time.time()
        interior = np.array(shape["interior"], dtype=np.float32).reshape(-1, 3)
        model, history = optimise(interior, args.fields, args.steps)
        query = torch.from_numpy(np.array(shape["points"], dtype=np.float32).reshape(1, -1, 3))
        with torch.no_grad():
            raw = model(losses.stencil(query)).reshape(query.shape[1], 7, args.fields).numpy()
        h = losses.STENCIL_STEP
        grads = np.stack([(raw[:, 1 + 2 * a] - raw[:, 2 + 2 * a]) / (2 * h) for a in range(3)], axis=-1)
        tail = history[-100:]
        out.append({"name": shape["name"], "weights": raw[:, 0].reshape(-1).tolist(), "gradients": grads.reshape(-1).tolist(),
                    "steps": args.steps, "seconds": time.time() - started,
                    "plateau": float(np.std(tail) / (np.mean(tail) + 1e-12))})
        print(f"{shape['name']}: {time.time() - started:.1f} s, final elastic {np.mean(tail):.4g}", file=sys.stderr, flush=True)
    json.dump(out, open(args.output, "w"))


if __name__ == "__main__":
    main()
