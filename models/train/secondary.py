"""Trains the learned secondary-motion layer (DSNet's idea, on our own solver): a small GRU that reads a rigged
character's recent joint velocities and accelerations (and its size) each step and predicts the solver's
complementary soft part q. The data comes from `npm run train:secondary`, which runs the solver and then this.

    /usr/bin/python3 models/train/secondary.py --data models/train/runs/secondary --out models --name fox
        [--steps 2500] [--hidden 64] [--project 48] [--basis 32] [--chunk 120] [--batch 32] [--threads 2] [--smoke]

The output is a fixed linear map of B coefficients, the principal directions of the training q in the surface
metric (so the loss is the surface displacement's squared error, mm^2). Writes <out>/secondary-<name>.onnx
(opset 17: features (steps, 1, F) + hidden (1, 1, H) -> q (steps, 1, n) + hidden_out), <name>.json (what the
runtime needs and how it was trained) and a parity fixture (torch's answers for onnxruntime to reproduce).
"""
import argparse
import csv
import json
import math
import os
import time

import numpy as np
import torch
from torch import nn

# Frames at the start of a chunk that only warm the hidden state up (chunks that start mid-sequence from zeros).
BURN_IN = 20


class SecondaryNet(nn.Module):
    def __init__(self, features, n, hidden, project, basis, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32))
        self.project = nn.Linear(features, project)
        self.gru = nn.GRU(project, hidden)
        self.head = nn.Linear(hidden, basis.shape[0])
        self.register_buffer("basis", torch.tensor(basis, dtype=torch.float32))

    def coefficients(self, features, hidden):
        x = torch.tanh(self.project((features - self.mean) / self.std))
        y, hidden = self.gru(x, hidden)
        return self.head(y), hidden

    def forward(self, features, hidden):
        c, hidden = self.coefficients(features, hidden)
        return c @ self.basis, hidden


def load_data(directory):
    with open(os.path.join(directory, "data.json")) as f:
        meta = json.load(f)
    raw = np.fromfile(os.path.join(directory, "data.f32"), dtype=np.float32)
    F, n = meta["featureCount"], meta["n"]
    sequences = []
    for s in meta["sequences"]:
        features = raw[s["featuresOffset"]: s["featuresOffset"] + s["steps"] * F].reshape(s["steps"], F)
        q = raw[s["qOffset"]: s["qOffset"] + s["steps"] * n].reshape(s["steps"], n)
        sequences.append((features, q))
    return meta, sequences


def surface_basis(metric, qs, count):
    """Principal directions of the q's in the surface metric: y = 1000 L^T q per component is the surface
    displacement in mm (|y|^2 = RMS^2); returns the whitening (n x n) and the directions' map c -> q (count x n)."""
    m = metric.shape[0]
    L = np.linalg.cholesky(metric + 1e-12 * np.trace(metric) / m * np.eye(m))
    whiten = np.kron(np.eye(3), 1000.0 * L.T)  # q -> y (mm)
    y = qs @ whiten.T
    values, vectors = np.linalg.eigh(y.T @ y / len(y))
    order = np.argsort(values)[::-1][:count]
    V = vectors[:, order]  # (n, count): y ~ V c
    captured = values[order].sum() / values.sum()
    unwhiten = np.linalg.inv(whiten)  # y -> q
    return whiten, V, (unwhiten @ V).T, float(captured)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--name", default="fox")
    p.add_argument("--steps", type=int, default=2500)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--project", type=int, default=48)
    p.add_argument("--basis", type=int, default=32)
    p.add_argument("--chunk", type=int, default=120)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--smoke", action="store_true", help="a few steps, to check the pipeline")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    steps = 20 if args.smoke else args.steps

    meta, sequences = load_data(args.data)
    F, n = meta["featureCount"], meta["n"]
    metric = np.array(meta["surfaceMetric"], dtype=np.float64).reshape(n // 3, n // 3)
    all_q = np.concatenate([q for _, q in sequences]).astype(np.float64)
    all_f = np.concatenate([f for f, _ in sequences]).astype(np.float64)
    whiten, V, basis, captured = surface_basis(metric, all_q, args.basis)
    mean, std = all_f.mean(0), all_f.std(0)
    std = np.where(std > 1e-6 * max(std.max(), 1e-12), std, 1.0)
    model = SecondaryNet(F, n, args.hidden, args.project, basis, mean, std)
    parameters = sum(p.numel() for p in model.parameters())
    targets = [torch.tensor((q.astype(np.float64) @ whiten.T) @ V, dtype=torch.float32) for _, q in sequences]
    inputs = [torch.tensor(f) for f, _ in sequences]
    lengths = np.array([len(f) for f, _ in sequences])
    chunk = min(args.chunk, int(lengths.min()))
    print(json.dumps({"frames": int(lengths.sum()), "sequences": len(sequences), "features": F, "n": n, "parameters": parameters,
                      "basis": args.basis, "capturedVariance": round(captured, 5)}), flush=True)

    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: 0.03 + 0.97 * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    os.makedirs(args.data, exist_ok=True)
    losses_path = os.path.join(args.data, "losses.csv")
    start = time.time()
    with open(losses_path, "w", newline="") as losses_file:
        writer = csv.writer(losses_file)
        writer.writerow(["step", "mse_mm2", "lr"])
        for step in range(steps):
            batch_f, batch_c, weights = [], [], []
            for _ in range(args.batch):
                s = rng.choice(len(sequences), p=lengths / lengths.sum())
                from_start = rng.random() < 0.2
                t0 = 0 if from_start else int(rng.integers(0, lengths[s] - chunk + 1))
                batch_f.append(inputs[s][t0: t0 + chunk])
                batch_c.append(targets[s][t0: t0 + chunk])
                w = torch.ones(chunk)
                if not from_start:
                    w[:BURN_IN] = 0
                weights.append(w)
            f = torch.stack(batch_f, 1)  # (T, B, F)
            c = torch.stack(batch_c, 1)
            w = torch.stack(weights, 1).unsqueeze(-1)
            predicted, _ = model.coefficients(f, torch.zeros(1, args.batch, args.hidden))
            # Squared surface error a frame (mm^2): the coefficients' squared errors summed, averaged over frames.
            loss = (w * (predicted - c) ** 2).sum() / w.sum()
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            writer.writerow([step + 1, f"{loss.item():.6f}", f"{schedule.get_last_lr()[0]:.6g}"])
            if (step + 1) % 100 == 0 or step + 1 == steps:
                losses_file.flush()
                print(json.dumps({"step": step + 1, "mse_mm2": round(loss.item(), 5), "seconds": round(time.time() - start, 1)}), flush=True)
    seconds = time.time() - start
    model.eval()
    export(model, args, meta, F, n, parameters, captured, seconds, steps, sequences)


def export(model, args, meta, F, n, parameters, captured, seconds, steps, sequences):
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"secondary-{args.name}.onnx")
    example = torch.zeros(3, 1, F)
    hidden = torch.zeros(1, 1, args.hidden)
    torch.onnx.export(model, (example, hidden), path, opset_version=17, input_names=["features", "hidden"],
                      output_names=["q", "hidden_out"], dynamic_axes={"features": {0: "steps"}, "q": {0: "steps"}})
    # Parity: the first steps of the first sequence, through torch.
    features = torch.tensor(sequences[0][0][40:45]).unsqueeze(1)
    with torch.no_grad():
        q, hidden_out = model(features, hidden)
    parity = {"steps": 5, "features": features.reshape(-1).tolist(), "q": q.reshape(-1).tolist(), "hiddenOut": hidden_out.reshape(-1).tolist()}
    with open(os.path.join(args.out, f"secondary-{args.name}-parity.json"), "w") as f:
        json.dump(parity, f)
    info = {
        "featureCount": F, "n": n, "hidden": args.hidden, "dt": meta["dt"], "clips": meta["clips"], "sizes": meta["sizes"],
        "material": meta["material"],
        "training": {"steps": steps, "seconds": round(seconds, 1), "parameters": parameters, "basis": args.basis,
                     "capturedVariance": round(captured, 5), "frames": int(sum(len(f) for f, _ in sequences)),
                     "chunk": args.chunk, "batch": args.batch, "seed": args.seed, "smoke": args.smoke},
    }
    with open(os.path.join(args.out, f"secondary-{args.name}.json"), "w") as f:
        json.dump(info, f, indent=2)
    print(json.dumps({"onnx": path, "bytes": os.path.getsize(path), "parameters": parameters, "seconds": round(seconds, 1)}), flush=True)


if __name__ == "__main__":
    main()
