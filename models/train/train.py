"""Trains the skinning-field network on procedural shapes, on CPU: distilled from each shape's skinning
eigenmodes (teacher.py, the bake's eigen provider's operator) with a span loss, the physics losses kept as a
regulariser; --no-teacher trains from the physics losses alone (the recipe before issue 11).

    /usr/bin/python3 models/train/train.py                      # the shipped recipe (resumes if interrupted)
    /usr/bin/python3 models/train/train.py --smoke --out /tmp/s   # a few steps on a few shapes (CI)

Checkpoints go to <out>/checkpoint.pt every --checkpoint-every steps (and on Ctrl-C); the loss curve to
<out>/losses.csv; the final weights to <out>/weights.pt. Export with export.py.
"""
import argparse
import csv
import math
import os
import signal
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import losses  # noqa: E402
import shapes  # noqa: E402
import teacher  # noqa: E402
from model import SkinningNet, parameter_count  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "runs", "shipped"))
    p.add_argument("--shapes", type=int, default=2000, help="training shapes (indices 0..N-1)")
    p.add_argument("--no-teacher", dest="teacher", action="store_false",
                   help="physics losses only (no eigenmode teacher), as before issue 11")
    p.add_argument("--physics-points", type=int, default=64,
                   help="with the teacher: interior points per shape per step for the physics regulariser")
    p.add_argument("--physics-weight", type=float, default=0.05,
                   help="with the teacher: weight of log(elastic loss) beside the span loss")
    p.add_argument("--ortho-weight", type=float, default=0.1, help="with the teacher: weight of the orthogonality loss")
    p.add_argument("--rotate", action=argparse.BooleanOptionalAction, default=True,
                   help="with the teacher: turn each shape at random every step (its eigenmodes turn with it)")
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--batch", type=int, default=4, help="shapes per step")
    p.add_argument("--points", type=int, default=384, help="interior points per shape per step")
    p.add_argument("--surface", type=int, default=512, help="surface points per shape shown to the encoder")
    p.add_argument("--transforms", type=int, default=32, help="random handle transforms per shape per step")
    p.add_argument("--transform-scale", type=float, default=0.05)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--lr-min", type=float, default=5e-5)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--fields", type=int, default=16)
    p.add_argument("--linear-fields", type=int, default=0,
                   help="leading fields that are the coordinates x, y, z (tried with 3: worse on thin shapes, see the model card)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--checkpoint-every", type=int, default=100)
    p.add_argument("--smoke", action="store_true", help="tiny run for CI: 16 shapes, 30 steps")
    args = p.parse_args(argv)
    if args.smoke:
        args.shapes, args.steps, args.points, args.surface, args.transforms = 16, 30, 128, 256, 8
        args.checkpoint_every = 10
        args.width = 64
        args.physics_points = 32
    return args


def turned(surface, interior, rng):
    """Each shape turned by a random rotation and normalised again (bounding-box centre, largest extent 2), as
    the bake normalises: the eigenmodes at the turned points are the same numbers."""
    surface, interior = surface.copy(), interior.copy()
    for b in range(len(surface)):
        q = rng.normal(size=4)
        w, x, y, z = q / np.linalg.norm(q)
        r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]], dtype=np.float32)
        points = surface[b, :, :3] @ r.T
        low, high = points.min(0), points.max(0)
        centre, scale = (low + high) / 2, (high - low).max() / 2
        surface[b, :, :3] = (points - centre) / scale
        surface[b, :, 3:] = surface[b, :, 3:] @ r.T
        interior[b] = (interior[b] @ r.T - centre) / scale
    return surface, interior


def distillation_losses(model, surface, points, targets, eigenvalues, blend, args):
    """Span loss against the teacher at `points`, and the physics regulariser (elastic and orthogonality losses)
    at the first args.physics_points of them, in one decoder pass."""
    surf, pts = torch.from_numpy(surface), torch.from_numpy(points)
    physics = pts[:, : args.physics_points]
    raw = model(surf, torch.cat([pts, losses.stencil(physics)], dim=1))
    span = losses.span_loss(raw[:, : pts.shape[1]], torch.from_numpy(targets), torch.from_numpy(eigenvalues).float())
    normalised, basis, grads = losses.stencil_fields(raw[:, : pts.shape[1]], raw[:, pts.shape[1]:])
    transforms = torch.randn(len(surface), args.transforms, args.fields + 1, 3, 4) * args.transform_scale
    elastic = losses.elastic_energy_density(losses.deformation_gradients(physics, basis, grads, transforms), blend)
    return span, elastic, losses.orthogonality(normalised)


def learning_rate(step, args):
    warmup = max(1, int(0.01 * args.steps))
    if step < warmup:
        return args.lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, args.steps - warmup)
    return args.lr_min + 0.5 * (args.lr - args.lr_min) * (1 + math.cos(math.pi * progress))


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    cache = os.path.join(args.out, f"shapes-{args.shapes}.npz")
    t0 = time.time()
    surface, normals, interior = shapes.build_dataset(range(args.shapes), cache, seed=args.seed)
    print(f"{len(surface)} shapes ready in {time.time() - t0:.1f} s", flush=True)
    if args.teacher:
        targets, eigenvalues = teacher.build_teachers(range(args.shapes), args.out, args.seed, args.fields,
                                                      log=lambda s: print(s, flush=True), jobs=args.threads)
        print(f"teachers ready in {time.time() - t0:.1f} s", flush=True)

    model = SkinningNet(fields=args.fields, width=args.width, linear_fields=args.linear_fields)
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    checkpoint = os.path.join(args.out, "checkpoint.pt")
    step, hours = 0, 0.0
    if os.path.exists(checkpoint):
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        step, hours = state["step"], state["hours"]
        print(f"resumed at step {step} ({hours:.2f} h so far)", flush=True)
    print(f"model: {parameter_count(model)} parameters", flush=True)

    log_path = os.path.join(args.out, "losses.csv")
    new_log = not os.path.exists(log_path) or step == 0
    log = open(log_path, "w" if new_log else "a", newline="")
    writer = csv.writer(log)
    if new_log:
        writer.writerow(["step", "elastic", "ortho", "lr", "blend", "seconds", "span"])

    def save():
        torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(), "step": step,
                    "hours": hours, "args": vars(args)}, checkpoint + ".tmp")
        os.replace(checkpoint + ".tmp", checkpoint)

    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    rng = np.random.default_rng([args.seed, step])
    params = [p for p in model.parameters()]
    first = last = None
    while step < args.steps and not stop["now"]:
        started = time.time()
        lr = learning_rate(step, args)
        for group in optimiser.param_groups:
            group["lr"] = lr
        blend = step / max(1, args.steps - 1)  # linear -> Neo-Hookean
        idx = rng.choice(len(surface), args.batch, replace=False)
        s_idx = rng.choice(surface.shape[1], args.surface, replace=False)
        p_idx = rng.choice(interior.shape[1], args.points, replace=False)
        surf_np = np.concatenate([surface[idx][:, s_idx], normals[idx][:, s_idx]], axis=-1)
        pts_np = interior[idx][:, p_idx]
        if args.teacher:
            if args.rotate:
                surf_np, pts_np = turned(surf_np, pts_np, rng)
            span, elastic, ortho = distillation_losses(model, surf_np, pts_np, targets[idx][:, p_idx], eigenvalues[idx], blend, args)
            optimiser.zero_grad()
            (span + args.ortho_weight * ortho + args.physics_weight * torch.log(elastic)).backward()
        else:
            span = torch.tensor(float("nan"))
            surf, pts = torch.from_numpy(surf_np), torch.from_numpy(pts_np)
            raw = model(surf, losses.stencil(pts))
            normalised, basis, grads = losses.fields_and_gradients(raw, args.points)
            transforms = torch.randn(args.batch, args.transforms, args.fields + 1, 3, 4) * args.transform_scale
            elastic = losses.elastic_energy_density(losses.deformation_gradients(pts, basis, grads, transforms), blend)
            ortho = losses.orthogonality(normalised)
            g1 = torch.autograd.grad(elastic, params, retain_graph=True, allow_unused=True)
            g2 = torch.autograd.grad(ortho, params, allow_unused=True)
            flat = lambda gs: torch.cat([(g if g is not None else torch.zeros_like(p)).reshape(-1) for g, p in zip(gs, params)])  # noqa: E731
            direction = losses.config_direction(flat(g1), flat(g2))
            offset = 0
            for p in params:
                p.grad = direction[offset:offset + p.numel()].view_as(p).clone()
                offset += p.numel()
        optimiser.step()
        step += 1
        elapsed = time.time() - started
        hours += elapsed / 3600
        writer.writerow([step, f"{elastic.item():.6g}", f"{ortho.item():.6g}", f"{lr:.3g}", f"{blend:.3f}", f"{elapsed:.3f}",
                         f"{span.item():.6g}"])
        if first is None:
            first = (elastic.item(), ortho.item())
        last = (elastic.item(), ortho.item())
        if step % 10 == 0 or step == args.steps:
            log.flush()
            print(f"step {step}/{args.steps} span {span.item():.4g} elastic {elastic.item():.4g} ortho {ortho.item():.4g} lr {lr:.2e} "
                  f"{elapsed:.2f} s/step, {hours:.2f} h", flush=True)
        if step % args.checkpoint_every == 0:
            save()
    save()
    log.close()
    if step >= args.steps:
        torch.save({"model": model.state_dict(), "args": vars(args), "hours": hours}, os.path.join(args.out, "weights.pt"))
        print(f"done: {step} steps, {hours:.2f} h; first losses {first}, last {last}", flush=True)


if __name__ == "__main__":
    main()
