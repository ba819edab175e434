"""Exports trained weights to ONNX (opset 17, dynamic point counts) and writes a parity fixture: fixed inputs
with torch's outputs, which the TypeScript test replays in onnxruntime.

    /usr/bin/python3 models/train/export.py [--weights runs/shipped/weights.pt] [--out models] [--fixture FILE]
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from model import SkinningNet  # noqa: E402

HERE = os.path.dirname(__file__)


def load(path):
    state = torch.load(path)
    args = state["args"]
    model = SkinningNet(fields=args["fields"], width=args["width"], linear_fields=args.get("linear_fields", 0))
    model.load_state_dict(state["model"])
    model.eval()
    return model, state


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights", default=os.path.join(HERE, "runs", "shipped", "weights.pt"))
    p.add_argument("--out", default=os.path.join(HERE, ".."))
    p.add_argument("--fixture", default=None, help="parity fixture path (default <out>/skinning-parity.json)")
    args = p.parse_args(argv)
    model, state = load(args.weights)
    os.makedirs(args.out, exist_ok=True)
    encoder_path = os.path.join(args.out, "skinning-encoder.onnx")
    decoder_path = os.path.join(args.out, "skinning-decoder.onnx")
    surface = torch.rand(1, 300, 6) * 2 - 1
    points = torch.rand(1, 200, 3) * 2 - 1
    with torch.no_grad():
        latents = model.encoder(surface)
    torch.onnx.export(model.encoder, (surface,), encoder_path, opset_version=17, input_names=["surface"],
                      output_names=["latents"], dynamic_axes={"surface": {0: "batch", 1: "points"}, "latents": {0: "batch"}})
    torch.onnx.export(model.decoder, (latents, points), decoder_path, opset_version=17, input_names=["latents", "points"],
                      output_names=["fields"], dynamic_axes={"latents": {0: "batch"}, "points": {0: "batch", 1: "points"},
                                                             "fields": {0: "batch", 1: "points"}})
    # Parity fixture: a different point count from the export trace, so dynamic axes are exercised.
    rng = np.random.default_rng(7)
    s = rng.uniform(-1, 1, size=(1, 257, 6)).astype(np.float32)
    s[..., 3:] /= np.linalg.norm(s[..., 3:], axis=-1, keepdims=True)
    q = rng.uniform(-1, 1, size=(1, 333, 3)).astype(np.float32)
    with torch.no_grad():
        lat = model.encoder(torch.from_numpy(s))
        fields = model.decoder(lat, torch.from_numpy(q))
    fixture = {"surface": s.reshape(-1).tolist(), "surfaceCount": 257, "points": q.reshape(-1).tolist(), "pointCount": 333,
               "latents": lat.numpy().reshape(-1).tolist(), "latentShape": list(lat.shape),
               "fields": fields.numpy().reshape(-1).tolist(), "fieldCount": int(fields.shape[-1])}
    fixture_path = args.fixture or os.path.join(args.out, "skinning-parity.json")
    with open(fixture_path, "w") as f:
        json.dump(fixture, f)
    sizes = {path: os.path.getsize(path) for path in (encoder_path, decoder_path)}
    print(json.dumps({"encoder": encoder_path, "decoder": decoder_path, "fixture": fixture_path,
                      "bytes": sizes, "parameters": sum(p.numel() for p in model.parameters()),
                      "trainingHours": state.get("hours")}))


if __name__ == "__main__":
    main()
