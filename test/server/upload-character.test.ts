// What a rigged upload must be to become a character: at most UPLOAD_LIMITS.characterJoints joints (64 is taken,
// 65 refused with the reason), and a rig without clips is given a still one.

import { expect, it } from "vitest";
import { parseMesh } from "../../shared/geometry";
import { UPLOAD_LIMITS } from "../../shared/net";
import { characterRefusal, REST_POSE_CLIP, withStillClip } from "../../server/uploads/upload-character";
import { foxWithExtraJoints, foxWithoutClips } from "../rig/rigged-files";

it("a rig of 64 joints is a character; one of 65 is refused with the reason", async () => {
  expect(UPLOAD_LIMITS.characterJoints).toBe(64);
  const fits = await parseMesh(await foxWithExtraJoints(40), "glb"), over = await parseMesh(await foxWithExtraJoints(41), "glb");
  expect(fits.rig!.jointNodes.length).toBe(64);
  expect(characterRefusal(fits)).toBeNull();
  expect(over.rig!.jointNodes.length).toBe(65);
  expect(characterRefusal(over)).toBe("its rig has 65 joints; a character may have at most 64");
});

it("a rig without clips gets one still clip, its rest pose; one with clips keeps them", async () => {
  const still = withStillClip(await parseMesh(await foxWithoutClips(), "glb"));
  expect(still.rig!.clips.map((c) => [c.name, c.duration, c.channels.length])).toEqual([[REST_POSE_CLIP, 0, 0]]);
  const fox = await parseMesh(await foxWithExtraJoints(0), "glb");
  expect(withStillClip(fox)).toBe(fox);
});
