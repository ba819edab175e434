// Clients get the fields, not the render weights: the client copy of a bake is a fraction of its size, and the
// weights evaluated from it are the server's, to rounding.

import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { readMeshFile } from "../../server/world/mesh-file";
import { MODEL_DIRECTORY, modelProvider } from "../../server/skinning/model-provider";
import { bakeMesh, baselineProvider, clientBakedBody, eigenProvider, decodeBakedBody, encodeBakedBody, needsDecoder, orthonormalProvider, renderWeightsOf, type OrtModule } from "../../shared/skinning";

describe("field descriptions", () => {
  it("a baseline bake's client copy drops the render weights, and the client recomputes them exactly", async () => {
    const mesh = await readMeshFile("../shared/assets/meshes/spot.obj");
    const { body } = await bakeMesh(mesh, baselineProvider, { handles: 16, cubature: 256 });
    expect(body.fieldKind).toBe("baseline-bumps");
    const full = encodeBakedBody(body), light = encodeBakedBody(clientBakedBody(body));
    // Spot's 2,930 render vertices x 17 weights are not sent (nor the 4,096 mass samples: their integrals travel).
    expect(full.length - light.length).toBeGreaterThanOrEqual(body.renderWeights.byteLength);
    const received = decodeBakedBody(light);
    expect(received.renderWeights.length).toBe(0);
    const fractions: number[] = [];
    const weights = await renderWeightsOf(received, (f) => fractions.push(f));
    expect(weights.length).toBe(body.renderWeights.length);
    let worst = 0;
    for (let i = 0; i < weights.length; i++) worst = Math.max(worst, Math.abs(weights[i] - body.renderWeights[i]));
    expect(worst).toBeLessThan(1e-12);
    expect(fractions[fractions.length - 1]).toBe(1);
  });

  it("eigen fields travel as grid values for a big mesh (in a single-precision copy too), and a small mesh's weights travel as they are", async () => {
    const big = (await bakeMesh(await readMeshFile("../shared/assets/meshes/stanford-bunny.obj"), eigenProvider, { handles: 16, cubature: 256 })).body;
    expect(big.fieldKind).toBe("eigen-grid");
    const received = decodeBakedBody(encodeBakedBody(clientBakedBody(big)));
    expect(received.renderWeights.length).toBe(0);
    expect(received.fieldDescription.length).toBeLessThan(big.renderWeights.length / 3);
    const weights = await renderWeightsOf(received);
    let worst = 0;
    for (let i = 0; i < weights.length; i++) worst = Math.max(worst, Math.abs(weights[i] - big.renderWeights[i]));
    expect(worst).toBeLessThan(1e-12);
    // As the server sends it: floats in single precision, the description exact; the weights to single precision.
    const single = encodeBakedBody(clientBakedBody(big), { floats: "f32" });
    // Every float array but the exact ones (description, norms, mass integrals) takes half the bytes.
    const narrowed = Object.entries(clientBakedBody(big)).filter(([name, a]) => a instanceof Float64Array && !["fieldDescription", "fieldNorms", "massIntegrals"].includes(name));
    const halved = narrowed.reduce((sum, [, a]) => sum + (a as Float64Array).byteLength / 2, 0);
    expect(encodeBakedBody(clientBakedBody(big)).length - single.length).toBeGreaterThanOrEqual(halved - 8 * narrowed.length);
    const fromSingle = await renderWeightsOf(decodeBakedBody(single));
    let worstSingle = 0;
    for (let i = 0; i < fromSingle.length; i++) worstSingle = Math.max(worstSingle, Math.abs(fromSingle[i] - big.renderWeights[i]));
    expect(worstSingle).toBeLessThan(1e-4);
    const small = (await bakeMesh(await readMeshFile("../shared/assets/meshes/spot.obj"), eigenProvider, { handles: 16, cubature: 256 })).body;
    const light = clientBakedBody(small);
    expect(light.fieldKind).toBe("");
    expect(light.fieldDescription.length).toBe(0);
    expect(Array.from(light.renderWeights)).toEqual(Array.from(small.renderWeights));
  });

  it("fields that cannot be described keep their render weights in the client copy", async () => {
    const mesh = await readMeshFile("../shared/assets/meshes/suzanne.obj");
    // A provider whose fields can only be evaluated, not described.
    const opaque = {
      name: "opaque",
      async fieldsFor(shape: Parameters<typeof baselineProvider.fieldsFor>[0], k: number) {
        const fields = await baselineProvider.fieldsFor(shape, k);
        return { count: fields.count, evaluate: fields.evaluate.bind(fields) };
      },
    };
    const { body } = await bakeMesh(mesh, opaque, { handles: 8, cubature: 128 });
    expect(body.fieldKind).toBe("");
    const received = decodeBakedBody(encodeBakedBody(clientBakedBody(body)));
    expect(Array.from(await renderWeightsOf(received))).toEqual(Array.from(body.renderWeights));
  });

  it("the network's fields travel as the shape's latents and the orthonormalising factor; a decoder gives back the weights", async () => {
    const mesh = await readMeshFile("../shared/assets/meshes/spot.obj");
    const { body } = await bakeMesh(mesh, orthonormalProvider(await modelProvider()), { handles: 16, cubature: 256 });
    expect(body.fieldKind).toBe("orthonormal+model-decoder");
    expect(needsDecoder(body.fieldKind)).toBe(true);
    const received = decodeBakedBody(encodeBakedBody(clientBakedBody(body)));
    expect(received.renderWeights.length).toBe(0);
    await expect(renderWeightsOf(received)).rejects.toThrow(/decoder/);
    // What the browser's worker does with onnxruntime-web, here with onnxruntime-node.
    const ort = (await import("onnxruntime-node")) as unknown as OrtModule;
    const decoder = await ort.InferenceSession.create(new Uint8Array(await readFile(`${MODEL_DIRECTORY}/skinning-decoder.onnx`)));
    const weights = await renderWeightsOf(received, undefined, { ort, decoder });
    let worst = 0, largest = 0;
    for (let i = 0; i < weights.length; i++) {
      worst = Math.max(worst, Math.abs(weights[i] - body.renderWeights[i]));
      largest = Math.max(largest, Math.abs(body.renderWeights[i]));
    }
    expect(worst).toBeLessThan(1e-5 * largest);
  });
});
