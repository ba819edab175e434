"""Rebuilds the shipped SkinningNet's torch weights from the two ONNX files and checks them against the parity
fixture (torch's outputs at export time), so the network can be fine-tuned without the lost runs/ directory.

    /usr/bin/python3 models/train/onnx_weights.py [--models models] [--out runs/shipped/weights.pt]

Named initializers are the state dict's own names. The export folded the rest into anonymous `onnx::MatMul_*`
(Linear weights, transposed; self-attention's fused in_proj weight, transposed) and `onnx::Expand_*` (the learned
query / handle tokens, with a batch axis) initializers; each is mapped by the graph node that reads it: the node's
name carries the module path (e.g. `/layers.0/attention/MatMul`, `/blocks/blocks.1/net/net.2/MatMul`).
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from model import SkinningNet  # noqa: E402

HERE = os.path.dirname(__file__)
ARGS = {"fields": 16, "width": 128, "linear_fields": 0}
TOLERANCE = 1e-4


def module_of(node_name):
    """'/blocks/blocks.1/net/net.2/MatMul' -> 'blocks.1.net.2'; '/layers.0/attention/MatMul' -> 'layers.0.attention'."""
    parts = [p for p in node_name.split("/") if p][:-1]
    # The exporter repeats a Sequential's path inside each child's scope ('blocks/blocks.1'): keep the deepest.
    kept = []
    for part in parts:
        if kept and part.startswith(kept[-1] + "."):
            kept[-1] = part
        else:
            kept.append(part)
    return ".".join(kept)


def anonymous_names(graph, prefix):
    """Maps each anonymous initializer to its parameter name (without the encoder./decoder. prefix)."""
    names = {}
    for node in graph.node:
        for value in node.input:
            if not value.startswith("onnx::"):
                continue
            if value.startswith("onnx::MatMul_"):
                module = module_of(node.name)
                # Self-attention's q = k = v projection is one MatMul with the fused in_proj weight.
                names[value] = module + (".in_proj_weight" if module.endswith("attention") else ".weight")
            elif value.startswith("onnx::Expand_"):
                names[value] = "queries" if prefix == "encoder" else "handle_tokens"
    return names


def state_from_onnx(path, prefix):
    graph = onnx.load(path).graph
    names = anonymous_names(graph, prefix)
    state = {}
    for init in graph.initializer:
        array = numpy_helper.to_array(init)
        if init.name.startswith("onnx::MatMul_"):
            array = array.T
        elif init.name.startswith("onnx::Expand_"):
            array = array[0]
        name = names.get(init.name, init.name)
        state[f"{prefix}.{name}"] = torch.from_numpy(np.array(array, copy=True))
    return state


def _is_self_attention(name):
    return name.startswith(("encoder.layers.", "decoder.shape_self."))


def recover(models_dir):
    model = SkinningNet(**ARGS)
    state = {**state_from_onnx(os.path.join(models_dir, "skinning-encoder.onnx"), "encoder"),
             **state_from_onnx(os.path.join(models_dir, "skinning-decoder.onnx"), "decoder")}
    expected = model.state_dict()
    # Self-attention blocks own a context norm they never use (context is None), so the export dropped it: keep
    # its initial values.
    for name, value in expected.items():
        if ".norm_kv." in name and name not in state and _is_self_attention(name):
            state[name] = value.clone()
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    wrong = [k for k in expected if k in state and tuple(state[k].shape) != tuple(expected[k].shape)]
    if missing or unexpected or wrong:
        raise SystemExit(f"ONNX initializers do not map onto SkinningNet: missing {missing}, unexpected {unexpected}, "
                         f"wrong shapes {wrong}")
    model.load_state_dict(state)
    model.eval()
    return model


def parity_error(model, fixture_path):
    """Max abs difference of torch's latents and fields against the fixture torch wrote at export time."""
    with open(fixture_path) as f:
        fx = json.load(f)
    surface = torch.tensor(fx["surface"], dtype=torch.float32).reshape(1, fx["surfaceCount"], 6)
    points = torch.tensor(fx["points"], dtype=torch.float32).reshape(1, fx["pointCount"], 3)
    with torch.no_grad():
        latents = model.encoder(surface)
        fields = model.decoder(latents, points)
    return {"latents": float((latents.reshape(-1) - torch.tensor(fx["latents"])).abs().max()),
            "fields": float((fields.reshape(-1) - torch.tensor(fx["fields"])).abs().max())}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=os.path.join(HERE, ".."))
    p.add_argument("--fixture", default=None, help="parity fixture (default <models>/skinning-parity.json)")
    p.add_argument("--out", default=os.path.join(HERE, "runs", "shipped", "weights.pt"))
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    model = recover(args.models)
    error = parity_error(model, args.fixture or os.path.join(args.models, "skinning-parity.json"))
    if not (error["latents"] <= TOLERANCE and error["fields"] <= TOLERANCE):
        raise SystemExit(f"recovered weights do not reproduce the parity fixture: {error} (tolerance {TOLERANCE})")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    # The same layout as train.py's weights.pt, so export.py and fine-tuning load it unchanged.
    torch.save({"model": model.state_dict(), "args": dict(ARGS), "recoveredFrom": "onnx"}, args.out)
    print(json.dumps({"weights": args.out, "parity": error, "tolerance": TOLERANCE}))


if __name__ == "__main__":
    main()
