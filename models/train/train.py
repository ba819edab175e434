"""Trains the skinning-field network on procedural shapes with the physics-only losses, on CPU.

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
from model import SkinningNet, parameter_count  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "runs", "shipped"))
    p.add_argument("--shapes", type=int, default=2400, help="training shapes (indices 0..N-1)")
    p.add_argument("--steps", type=int, default=1800)
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
    return args


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
        writer.writerow(["step", "elastic", "ortho", "lr", "blend", "seconds"])

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
        surf = torch.from_numpy(np.concatenate([surface[idx][:, s_idx], normals[idx][:, s_idx]], axis=-1))
        pts = torch.from_numpy(interior[idx][:, p_idx])
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
        writer.writerow([step, f"{elastic.item():.6g}", f"{ortho.item():.6g}", f"{lr:.3g}", f"{blend:.3f}", f"{elapsed:.3f}"])
        if first is None:
            first = (elastic.item(), ortho.item())
        last = (elastic.item(), ortho.item())
        if step % 10 == 0 or step == args.steps:
            log.flush()
            print(f"step {step}/{args.steps} elastic {elastic.item():.4g} ortho {ortho.item():.4g} lr {lr:.2e} "
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
