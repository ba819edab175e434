// What a placeholder says while the server has the upload: its place in line and about how long while it waits,
// then the bake's stage.

import { expect, it } from "vitest";
import { uploadStatusLabel } from "../../client/src/upload/upload-status";

it("a waiting upload says its place in line (the bake running counts as ahead) and the estimate, when there is one", () => {
  expect(uploadStatusLabel({ stage: "queued", progress: 0, ahead: 1, secondsLeft: 12.4 })).toBe("waiting: 2nd in line, about 12 s");
  expect(uploadStatusLabel({ stage: "queued", progress: 0, ahead: 2, secondsLeft: 0 })).toBe("waiting: 3rd in line");
  expect(uploadStatusLabel({ stage: "queued", progress: 0, ahead: 10, secondsLeft: 40 })).toBe("waiting: 11th in line, about 40 s");
  expect(uploadStatusLabel({ stage: "queued", progress: 0, ahead: 20, secondsLeft: 0 })).toBe("waiting: 21st in line");
  expect(uploadStatusLabel({ stage: "queued", progress: 0, ahead: 0, secondsLeft: 0 })).toBe("starting");
  expect(uploadStatusLabel({ stage: "fields", progress: 0.4, ahead: 0, secondsLeft: 2.6 })).toBe("making it soft: 40%, about 3 s");
});
