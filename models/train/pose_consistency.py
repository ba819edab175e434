"""Pose-consistency fine-tuning of the skinning network (issue 16, after SPRig's teacher-student consistency).

Frames come from `npm run eval:pose-invariance -- --mesh M --frames N --dump DIR` (a rigged mesh's clips posed,
or an unrigged mesh deformed by our solver): per frame the deformed surface as the network sees it and the same
material points where the frame puts them, with the anchor frame the eval chose (the consensus frame).
- teacher: the original network's prediction on the anchor frame at the material points (frozen);
- students: the network on every frame at the same material points; loss = 1 - the teacher's variance captured
  by span{1, student} (losses.span_loss with equal weights), the teacher whitened (an orthonormal basis of its
  span), so the loss is the subspace distance over K;
- regulariser: self-distillation on undeformed training shapes (shapes.py), the same span loss against the original
  network's fields, so the subspace quality (eval:modes) does not drift.

    /usr/bin/python3 models/train/pose_consistency.py --frames DIR [DIR ...] [--steps 300] [--out runs/pose-consistent]
    /usr/bin/python3 models/train/export.py --weights runs/pose-consistent/weights.pt --out ../pose-consistent
"""
import argparse
import copy
import csv
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from losses import span_loss  # noqa: E402
from onnx_weights import ARGS, recover  # noqa: E402
from shapes import sample_shape  # noqa: E402

HERE = os.path.dirname(__file__)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", nargs="+", required=True, help="dump directories of eval:pose-invariance --dump")
    p.add_argument("--models", default=os.path.join(HERE, ".."), help="the network to start from (its ONNX files)")
    p.add_argument("--out", default=os.path.join(HERE, "runs", "pose-consistent"))
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--frames-per-step", type=int, default=4, help="student frames a step (spread over the meshes)")
    p.add_argument("--shapes-per-step", type=int, default=2, help="training shapes a step for the regulariser")
    p.add_argument("--regulariser", type=float, default=1.0)
    p.add_argument("--surface", type=int, default=1024, help="surface points shown a step (the training's count)")
    p.add_argument("--points", type=int, default=512, help="material points a step")
    p.add_argument("--shape-pool", type=int, default=64, help="training shapes (indices 0..N-1) the regulariser draws from")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    return p.parse_args(argv)


def load_frames(directory):
    """[(surface (N, 6), points (Q, 3))] per frame and the anchor's index (frame 0 is the rest pose)."""
    with open(os.path.join(directory, "index.json")) as f:
        index = json.load(f)
    data = np.fromfile(os.path.join(directory, "frames.f32"), dtype=np.float32)
    frames = []
    for fr in index["frames"]:
        o, n, q = fr["offset"], fr["surfaceCount"], fr["pointCount"]
        frames.append((data[o:o + 6 * n].reshape(n, 6), data[o + 6 * n:o + 6 * n + 3 * q].reshape(q, 3)))
    return frames, index["anchor"]


def whitened(fields):
    """An orthonormal basis of the zero-mean fields' span (Q, K): every direction of the span counts the same in the
    span loss, as in the subspace distance, instead of the few largest the raw, partly collinear fields carry."""
    centred = fields - fields.mean(dim=0, keepdim=True)
    q, _ = torch.linalg.qr(centred.double())
    return q.float() * np.sqrt(len(fields))


def subsample(array, count, rng):
    return array if len(array) <= count else array[rng.choice(len(array), count, replace=False)]


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    original = recover(args.models)
    for p in original.parameters():
        p.requires_grad_(False)
    model = copy.deepcopy(original)
    model.train()
    for p in model.parameters():
        p.requires_grad_(True)

    meshes = []
    for directory in args.frames:
        frames, anchor = load_frames(directory)
        surface, points = frames[anchor]
        with torch.no_grad():
            teacher = original(torch.from_numpy(surface)[None], torch.from_numpy(points)[None])[0]
        meshes.append({"name": os.path.basename(os.path.normpath(directory)), "frames": frames, "teacher": teacher})
    shapes = [sample_shape(i) for i in range(args.shape_pool)]
    ones = torch.ones(1, 16)

    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(args.out, "losses.csv"), "w", newline="")
    writer = csv.writer(log)
    writer.writerow(["step", "consistency", "regulariser", "seconds"])
    start = time.time()
    for step in range(1, args.steps + 1):
        optimiser.zero_grad()
        consistency = 0.0
        for _ in range(args.frames_per_step):
            mesh = meshes[rng.integers(len(meshes))]
            surface, points = mesh["frames"][rng.integers(len(mesh["frames"]))]
            chosen = rng.choice(len(points), min(args.points, len(points)), replace=False)
            s = torch.from_numpy(subsample(surface, args.surface, rng))[None]
            student = model(s, torch.from_numpy(points[chosen])[None])
            loss = span_loss(student, whitened(mesh["teacher"][chosen])[None], ones) / args.frames_per_step
            loss.backward()
            consistency += float(loss)
        regulariser = 0.0
        for _ in range(args.shapes_per_step):
            shape = shapes[rng.integers(len(shapes))]
            s = torch.from_numpy(np.concatenate([shape["surface"], shape["normals"]], -1))[None]
            p = torch.from_numpy(subsample(shape["interior"], args.points, rng))[None]
            with torch.no_grad():
                target = whitened(original(s, p)[0])[None]
            loss = args.regulariser * span_loss(model(s, p), target, ones) / args.shapes_per_step
            loss.backward()
            regulariser += float(loss)
        optimiser.step()
        writer.writerow([step, round(consistency, 6), round(regulariser, 6), round(time.time() - start, 1)])
        log.flush()
        if step % 10 == 0 or step == 1:
            print(f"step {step}: consistency {consistency:.4f} regulariser {regulariser:.4f} ({time.time() - start:.0f} s)", file=sys.stderr)
    model.eval()
    torch.save({"model": model.state_dict(), "args": dict(ARGS), "fineTuned": "pose-consistency", "steps": args.steps,
                "hours": (time.time() - start) / 3600}, os.path.join(args.out, "weights.pt"))
    print(json.dumps({"weights": os.path.join(args.out, "weights.pt"), "steps": args.steps, "seconds": round(time.time() - start, 1)}))


if __name__ == "__main__":
    main()
