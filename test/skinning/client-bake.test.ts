// The copy of a bake that browsers download carries the mass samples' integrals instead of the samples, and only
// the candidate centres of the contact spheres: it must build the server's body (mass matrix, contact spheres)
// and move as the server's does. A rigged mesh's copy carries its joints' mass moments instead of the samples they
// are integrated from.

import { describe, expect, it } from "vitest";
import { readMeshFile } from "../../server/world/mesh-file";
import { MATERIALS, SoftEntity } from "../../shared/scene";
import { FloorContact } from "../../shared/sim";
import { bakeMesh, baselineProvider, clientBakedBody, decodeBakedBody, eigenProvider, encodeBakedBody } from "../../shared/skinning";
import { RigMoments } from "../../shared/rig";
import { Subspace } from "../../shared/sim/subspace";
import { toSubspaceSource } from "../../shared/skinning/baked-body";

describe("the client's copy of a bake", () => {
  it("is a third of the bytes, and builds the server's mass matrix, contact spheres and motion", async () => {
    const { body } = await bakeMesh(await readMeshFile("../shared/assets/meshes/spot.obj"), eigenProvider, { handles: 16, cubature: 256 });
    const sent = encodeBakedBody(clientBakedBody(body), { floats: "f32" });
    const received = decodeBakedBody(sent);
    expect(received.massVolumes.length).toBe(0);
    expect(sent.length).toBeLessThan(encodeBakedBody(body).length / 3);

    const size = 0.3;
    const server = new SoftEntity("server", body, size, MATERIALS.jelly, [0, 0.2, 0]);
    const client = new SoftEntity("client", received, size, MATERIALS.jelly, [0, 0.2, 0]);
    const a = server.subspace, b = client.subspace;
    let largest = 0, difference = 0;
    for (let i = 0; i < a.massBlock.length; i++) {
      largest = Math.max(largest, Math.abs(a.massBlock[i]));
      difference = Math.max(difference, Math.abs(a.massBlock[i] - b.massBlock[i]));
    }
    expect(difference / largest).toBeLessThan(1e-12);
    expect(Math.abs(a.massVolume - b.massVolume) / a.massVolume).toBeLessThan(1e-12);
    for (let k = 0; k < 3; k++) expect(b.restCentroid[k]).toBeCloseTo(a.restCentroid[k], 9);
    // The same contact spheres, to single precision.
    expect(client.proxyRest.length).toBe(server.proxyRest.length);
    for (let i = 0; i < server.proxyRest.length; i++) expect(Math.abs(client.proxyRest[i] - server.proxyRest[i])).toBeLessThan(1e-6);

    // Dropped on a floor, both copies fall alike; after the landing, which amplifies any rounding (as the server's
    // own copy in double precision does by ~3 mm within a second), they rest at the same height.
    for (const entity of [server, client]) entity.body.addContactSurface(new FloorContact(0));
    const ca = new Float64Array(3), cb = new Float64Array(3);
    for (let step = 0; step < 90; step++) {
      server.body.step();
      client.body.step();
      server.body.centroid(ca);
      client.body.centroid(cb);
      if (step < 12) expect(Math.hypot(ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]), `apart in free fall, step ${step}`).toBeLessThan(1e-6);
    }
    expect(ca[1]).toBeLessThan(0.15); // it fell and landed
    expect(Math.abs(ca[1] - cb[1])).toBeLessThan(0.005);
  });

  it("of a rigged mesh carries its joints' mass moments: a page's rig drives the flesh with the server's moments", async () => {
    const { body } = await bakeMesh(await readMeshFile("../shared/assets/characters/fox.glb"), baselineProvider, { handles: 8, cubature: 64 });
    const received = decodeBakedBody(encodeBakedBody(clientBakedBody(body), { floats: "f32" }));
    expect(received.massVolumes.length).toBe(0);
    const size = 0.8, server = new RigMoments(body, size).moments, client = new RigMoments(received, size).moments;
    let largest = 0, difference = 0;
    for (let i = 0; i < server.length; i++) {
      largest = Math.max(largest, Math.abs(server[i]));
      difference = Math.max(difference, Math.abs(server[i] - client[i]));
    }
    // Single precision on the way.
    expect(difference / largest).toBeLessThan(1e-6);
    // Against what the server's own solver integrates from the samples: the skin weights sum to one, so summed over the
    // joints the moments are the mass block's rows of the constant channel's (w0 x, w0 y, w0 z, w0).
    const subspace = new Subspace(toSubspaceSource(body, size)), m = subspace.m, w0 = body.massWeights[0], summed = new Float64Array(4 * m);
    for (let k = 0; k < body.rigJointNodes.length; k++) for (let i = 0; i < 4 * m; i++) summed[i] += client[4 * k * m + i];
    let blockLargest = 0, blockDifference = 0;
    for (let row = 0; row < 4; row++) for (let r = 0; r < m; r++) {
      const expected = subspace.massBlock[row * m + r] / w0;
      blockLargest = Math.max(blockLargest, Math.abs(expected));
      blockDifference = Math.max(blockDifference, Math.abs(summed[row * m + r] - expected));
    }
    console.info(`the client's moments summed over joints against the mass block: ${(blockDifference / blockLargest).toExponential(2)} of its largest`);
    expect(blockDifference / blockLargest).toBeLessThan(1e-5);
  });
});
