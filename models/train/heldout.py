"""Writes held-out procedural shapes (never trained on) as JSON for the evaluation.

    /usr/bin/python3 models/train/heldout.py OUT.json [--count 21]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import shapes  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("output")
    p.add_argument("--count", type=int, default=21)
    args = p.parse_args()
    out = []
    for i in range(args.count):
        index = shapes.HELD_OUT_START + i
        s = shapes.sample_shape(index)
        out.append({"name": f"heldout-{i}-{s['family']}", "family": s["family"], "surface": s["surface"].reshape(-1).tolist(),
                    "normals": s["normals"].reshape(-1).tolist(), "interior": s["interior"].reshape(-1).tolist()})
    json.dump(out, open(args.output, "w"))


if __name__ == "__main__":
    main()
