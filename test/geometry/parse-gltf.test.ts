import { Document, WebIO, type Node } from "@gltf-transform/core";
import { describe, expect, it } from "vitest";
import { MeshError, parseMesh, signedVolume, type TriangleMesh } from "../../shared/geometry";
import { encodeText } from "./helpers";
import { readFile } from "node:fs/promises";
import path from "node:path";

// A unit cube at the origin's corner, wound outward.
const CUBE_POSITIONS = new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]);
const CUBE_TRIANGLES = new Uint16Array([
  0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7,
]);

interface CubeDocument {
  document: Document;
  parent: Node;
  child: Node;
}

/** A cube mesh on a child node (scaled, translated) under a rotated parent node. */
function cubeDocument(): CubeDocument {
  const document = new Document();
  const buffer = document.createBuffer();
  const position = document.createAccessor().setType("VEC3").setArray(CUBE_POSITIONS).setBuffer(buffer);
  const indices = document.createAccessor().setType("SCALAR").setArray(CUBE_TRIANGLES).setBuffer(buffer);
  const material = document.createMaterial("red").setBaseColorFactor([1, 0, 0, 1]);
  const primitive = document.createPrimitive().setAttribute("POSITION", position).setIndices(indices).setMaterial(material);
  const mesh = document.createMesh("cube").addPrimitive(primitive);
  const child = document.createNode("child").setMesh(mesh).setScale([2, 2, 2]).setTranslation([1, 0, 0]);
  const s = Math.SQRT1_2; // 90 degrees about +z: (x, y, z) -> (-y, x, z)
  const parent = document.createNode("parent").setRotation([0, 0, s, s]).addChild(child);
  document.createScene("scene").addChild(parent);
  return { document, parent, child };
}

/** Expected world positions: rotate_z90(translate(1,0,0)(scale 2 p)). */
function expectedCube(): Float64Array {
  const out = new Float64Array(CUBE_POSITIONS.length);
  for (let i = 0; i < out.length; i += 3) {
    const x = 2 * CUBE_POSITIONS[i] + 1, y = 2 * CUBE_POSITIONS[i + 1], z = 2 * CUBE_POSITIONS[i + 2];
    out[i] = -y;
    out[i + 1] = x;
    out[i + 2] = z;
  }
  return out;
}

function expectPositionsClose(actual: Float64Array, expected: Float64Array): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i]).toBeCloseTo(expected[i], 6);
}

async function toEmbeddedGltf(document: Document): Promise<Uint8Array> {
  const { json, resources } = await new WebIO().writeJSON(document);
  for (const buffer of json.buffers ?? []) {
    const bytes = resources[buffer.uri!];
    buffer.uri = `data:application/octet-stream;base64,${Buffer.from(bytes).toString("base64")}`;
  }
  return encodeText(JSON.stringify(json));
}

describe("parseMesh on glTF and GLB", () => {
  it("reads a GLB with node transforms applied (parent rotation x child scale and translation)", async () => {
    const glb = await new WebIO().writeBinary(cubeDocument().document);
    const mesh = await parseMesh(glb, "glb");
    expectPositionsClose(mesh.positions, expectedCube());
    expect(Array.from(mesh.triangles)).toEqual(Array.from(CUBE_TRIANGLES));
    expect(signedVolume(mesh)).toBeCloseTo(8, 5);
  });

  it("reads the same triangles from a .gltf with buffers embedded as base64 data: URIs", async () => {
    const { document } = cubeDocument();
    const fromGlb = await parseMesh(await new WebIO().writeBinary(document), "glb");
    const fromGltf = await parseMesh(await toEmbeddedGltf(document), "gltf");
    expect(fromGltf.positions).toEqual(fromGlb.positions);
    expect(fromGltf.triangles).toEqual(fromGlb.triangles);
  });

  it("reads a GLB that starts at an unaligned offset inside a larger buffer", async () => {
    const glb = await new WebIO().writeBinary(cubeDocument().document);
    const padded = new Uint8Array(glb.byteLength + 3);
    padded.set(glb, 3);
    const mesh = await parseMesh(padded.subarray(3), "glb");
    expectPositionsClose(mesh.positions, expectedCube());
  });

  it("collects every instance of a mesh and every primitive", async () => {
    const { document, child } = cubeDocument();
    const second = document.createNode("second").setMesh(child.getMesh()).setTranslation([10, 0, 0]);
    document.getRoot().listScenes()[0].addChild(second);
    const mesh = await parseMesh(await new WebIO().writeBinary(document), "glb");
    expect(mesh.triangles.length / 3).toBe(24);
    expect(mesh.positions.length / 3).toBe(16);
    expect(signedVolume(mesh)).toBeCloseTo(8 + 1, 5);
  });

  it("keeps triangles wound outward under a mirroring node transform", async () => {
    const { document, child } = cubeDocument();
    child.setScale([-2, 2, 2]);
    const mesh: TriangleMesh = await parseMesh(await new WebIO().writeBinary(document), "glb");
    expect(signedVolume(mesh)).toBeCloseTo(8, 5);
  });

  it("converts triangle strips", async () => {
    const document = new Document();
    const buffer = document.createBuffer();
    const strip = new Float32Array([0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 2, 0, 0, 2, 1, 0]);
    const position = document.createAccessor().setType("VEC3").setArray(strip).setBuffer(buffer);
    const primitive = document.createPrimitive().setAttribute("POSITION", position).setMode(5);
    document.createScene().addChild(document.createNode().setMesh(document.createMesh().addPrimitive(primitive)));
    const mesh = await parseMesh(await new WebIO().writeBinary(document), "glb");
    expect(mesh.triangles.length / 3).toBe(4);
    // All four triangles face the same way (-z for this strip's first triangle 0, 1, 2).
    const p = mesh.positions, t = mesh.triangles;
    for (let f = 0; f < t.length; f += 3) {
      const [a, b, c] = [3 * t[f], 3 * t[f + 1], 3 * t[f + 2]];
      const nz = (p[b] - p[a]) * (p[c + 1] - p[a + 1]) - (p[b + 1] - p[a + 1]) * (p[c] - p[a]);
      expect(nz).toBeLessThan(0);
    }
  });

  it("rejects a .gltf that refers to an external buffer file", async () => {
    const { json } = await new WebIO().writeJSON(cubeDocument().document);
    await expect(parseMesh(encodeText(JSON.stringify(json)), "gltf")).rejects.toThrow(/external file .*upload a \.glb/);
  });

  it("rejects Draco-compressed files with the reason", async () => {
    const { json } = await new WebIO().writeJSON(cubeDocument().document);
    json.extensionsRequired = ["KHR_draco_mesh_compression"];
    await expect(parseMesh(encodeText(JSON.stringify(json)), "gltf")).rejects.toThrow(/KHR_draco_mesh_compression/);
  });

  it("rejects malformed, truncated, non-2.0 and triangle-less files with MeshError", async () => {
    await expect(parseMesh(encodeText("{ not json"), "gltf")).rejects.toThrow(/malformed/);
    await expect(parseMesh(encodeText('{"asset":{"version":"1.0"}}'), "gltf")).rejects.toThrow(/version "1.0" is not supported/);
    await expect(parseMesh(encodeText('{"asset":{"version":"2.0"}}'), "gltf")).rejects.toThrow(/no triangle primitives/);
    const glb = await new WebIO().writeBinary(cubeDocument().document);
    await expect(parseMesh(glb.subarray(0, 16), "glb")).rejects.toThrow(MeshError);
    await expect(parseMesh(glb.subarray(0, glb.byteLength - 40), "glb")).rejects.toThrow(MeshError);
  });

  it("checks the triangle limit from the declared accessor counts", async () => {
    const glb = await new WebIO().writeBinary(cubeDocument().document);
    await expect(parseMesh(glb, "glb", { limits: { maxTriangles: 11 } })).rejects.toThrow(/12 triangles; the limit is 11/);
    await expect(parseMesh(glb, "glb", { limits: { maxVertices: 7 } })).rejects.toThrow(/8 vertices; the limit is 7/);
  });
  it("keeps the fox's texture coordinates (flipped to v up) through welding: each corner's UV is the file's", async () => {
    const bytes = new Uint8Array(await readFile(path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb")));
    const mesh = await parseMesh(bytes, "glb");
    // What the file says, corner by corner, straight from the glTF library.
    const document = await new WebIO().readBinary(bytes);
    const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
    const uv = primitive.getAttribute("TEXCOORD_0")!, indices = primitive.getIndices(), vertices = primitive.getAttribute("POSITION")!.getCount();
    const corners = indices ? indices.getCount() : vertices;
    expect(mesh.triangles.length).toBe(corners);
    // Welded: fewer mesh vertices than the file's, which repeats them per triangle and along seams.
    expect(mesh.positions.length / 3).toBeLessThan(vertices);
    const element = [0, 0];
    for (let k = 0; k < corners; k++) {
      uv.getElement(indices ? indices.getScalar(k) : k, element);
      const at = mesh.uvTriangles![k];
      expect(mesh.uvs![2 * at]).toBeCloseTo(element[0], 6);
      expect(mesh.uvs![2 * at + 1]).toBeCloseTo(1 - element[1], 6);
    }
  });

  it("keeps vertex colours (normalised bytes decoded, alpha dropped) per corner through welding; a mesh without has none", async () => {
    const { document, child } = cubeDocument();
    // One colour per cube vertex as normalised RGBA bytes: vertex i gets red 30 i, green 255 - 30 i, blue 128.
    const bytes = new Uint8Array(4 * 8);
    for (let i = 0; i < 8; i++) bytes.set([30 * i, 255 - 30 * i, 128, 200], 4 * i);
    const colour = document.createAccessor().setType("VEC4").setArray(bytes).setNormalized(true).setBuffer(document.getRoot().listBuffers()[0]);
    child.getMesh()!.listPrimitives()[0].setAttribute("COLOR_0", colour).getMaterial()!.setBaseColorFactor([1, 1, 1, 1]);
    const mesh = await parseMesh(await new WebIO().writeBinary(document), "glb");
    expect(mesh.colorTriangles!.length).toBe(mesh.triangles.length);
    for (let k = 0; k < CUBE_TRIANGLES.length; k++) {
      const i = CUBE_TRIANGLES[k], at = mesh.colorTriangles![k];
      expect(mesh.colors![3 * at]).toBeCloseTo((30 * i) / 255, 6);
      expect(mesh.colors![3 * at + 1]).toBeCloseTo((255 - 30 * i) / 255, 6);
      expect(mesh.colors![3 * at + 2]).toBeCloseTo(128 / 255, 6);
    }
    const white = cubeDocument();
    white.child.getMesh()!.listPrimitives()[0].getMaterial()!.setBaseColorFactor([1, 1, 1, 1]);
    const plain = await parseMesh(await new WebIO().writeBinary(white.document), "glb");
    expect(plain.colors).toBeUndefined();
  });

  it("a material's base colour factor colours its primitive's vertices, times their COLOR_0", async () => {
    // The cube's material is red ([1, 0, 0]); a second primitive's is a linear half grey with a green COLOR_0.
    const { document, child } = cubeDocument();
    const buffer = document.getRoot().listBuffers()[0];
    const moved = new Float32Array(CUBE_POSITIONS.map((v, i) => (i % 3 === 0 ? v + 3 : v)));
    const green = new Float32Array(8 * 3).map((_, i) => (i % 3 === 1 ? 1 : 0.5));
    const second = document.createPrimitive()
      .setAttribute("POSITION", document.createAccessor().setType("VEC3").setArray(moved).setBuffer(buffer))
      .setAttribute("COLOR_0", document.createAccessor().setType("VEC3").setArray(green).setBuffer(buffer))
      .setIndices(document.createAccessor().setType("SCALAR").setArray(CUBE_TRIANGLES).setBuffer(buffer))
      .setMaterial(document.createMaterial("grey").setBaseColorFactor([0.5, 0.5, 0.5, 1]));
    child.getMesh()!.addPrimitive(second);
    const mesh = await parseMesh(await new WebIO().writeBinary(document), "glb");
    const colourOf = (k: number) => [0, 1, 2].map((c) => mesh.colors![3 * mesh.colorTriangles![k] + c]);
    for (let k = 0; k < CUBE_TRIANGLES.length; k++) expect(colourOf(k)).toEqual([1, 0, 0]);
    for (let k = CUBE_TRIANGLES.length; k < 2 * CUBE_TRIANGLES.length; k++) expect(colourOf(k)).toEqual([0.25, 0.5, 0.25]);
  });

  it("a glTF without texture coordinates has none", async () => {
    const { document } = cubeDocument();
    const mesh = await parseMesh(await new WebIO().writeBinary(document), "glb");
    expect(mesh.uvs).toBeUndefined();
  });
});
