// The spring layer as pages run it (shared/rig/page-springs.ts): its model survives the trip from a worker (a
// structured clone with its arrays transferred steps exactly as the model made in place), and its constraint is
// updated to the pose on the first step, then every PAGE_CONSTRAINT_EVERY steps, and again at once after a restart.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, it, vi } from "vitest";
import { parseMesh } from "../../shared/geometry";
import { ComplementaryProjection, pageSpringModel, PageSprings, SpringCharacter } from "../../shared/rig";
import { PAGE_CONSTRAINT_EVERY, pageSpringBuffers } from "../../shared/rig/page-springs";
import { bakeMesh, baselineProvider, clientBakedBody, decodeBakedBody, encodeBakedBody } from "../../shared/skinning";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

async function clientFox() {
  const { body } = await bakeMesh(await parseMesh(new Uint8Array(await readFile(FOX)), "glb"), baselineProvider, { handles: 8, cubature: 64 });
  return decodeBakedBody(encodeBakedBody(clientBakedBody(body), { floats: "f32" }));
}

it("a spring model sent from a worker (cloned, its arrays transferred) steps exactly as one made in place", async () => {
  const baked = await clientFox(), size = 0.3;
  const here = pageSpringModel(baked, size), sent = pageSpringModel(baked, size);
  const received = structuredClone(sent, { transfer: pageSpringBuffers(sent) });
  // The transfer took the sender's arrays: they must not be read again there.
  expect(sent.model.basis.vectors.length).toBe(0);
  const a = new PageSprings(baked, size, here), b = new PageSprings(baked, size, received);
  const clip = a.motion.rig.clips.find((c) => c.name === "Run")!;
  let moved = 0;
  for (let step = 1; step <= 90; step++) {
    for (const springs of [a, b]) springs.motion.pose.sample(clip, (step / 60) % clip.duration);
    a.step(1 / 60);
    b.step(1 / 60);
    moved = Math.max(moved, ...a.q.map(Math.abs));
  }
  expect(moved).toBeGreaterThan(0);
  expect(Array.from(b.q)).toEqual(Array.from(a.q));
}, 60_000);

it("the springs' constraint follows the pose on the first step, every so many steps, and at once after a restart", async () => {
  const baked = await clientFox(), size = 0.3, model = pageSpringModel(baked, size);
  const update = vi.spyOn(ComplementaryProjection.prototype, "update");
  const character = new SpringCharacter(baked, size, model.model, { subspace: model, constraintEvery: PAGE_CONSTRAINT_EVERY });
  const clip = character.motion.rig.clips[0];
  const updatesOver = (steps: number) => {
    update.mockClear();
    for (let step = 0; step < steps; step++) {
      character.motion.pose.sample(clip, (step / 60) % clip.duration);
      character.step(1 / 60);
    }
    return update.mock.calls.length;
  };
  expect(PAGE_CONSTRAINT_EVERY).toBe(2);
  expect(updatesOver(7)).toBe(4); // steps 1, 3, 5 and 7
  character.restart();
  expect(updatesOver(1)).toBe(1);
  // Nonsense is every step.
  update.mockClear();
  const everyStep = new SpringCharacter(baked, size, model.model, { subspace: model, constraintEvery: Number.NaN });
  for (let step = 0; step < 3; step++) everyStep.step(1 / 60);
  expect(update.mock.calls.length).toBe(3);
  update.mockRestore();
}, 60_000);
