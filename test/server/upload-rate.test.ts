// The upload rate per client address, with the default limits: refused before anything is read or baked, and
// one visitor's refusals do not hold up another's.

import { expect, it } from "vitest";
import { UPLOAD_LIMITS } from "../../shared/net";
import { startTestServer } from "./helpers";
import { upload } from "./upload-helpers";

it("uploads from one address are rate-limited; another address is not held up", async () => {
  const strict = await startTestServer({ port: 0 });
  try {
    const statuses: number[] = [];
    for (let k = 0; k < UPLOAD_LIMITS.uploadBurst + 1; k++) statuses.push((await upload(strict, "token=nope", "v 0 0 0", { "Content-Type": "model/obj" }, "127.0.0.7")).status);
    expect(statuses.slice(0, UPLOAD_LIMITS.uploadBurst)).toEqual(Array(UPLOAD_LIMITS.uploadBurst).fill(401));
    const limited = await upload(strict, "token=nope", "v 0 0 0", { "Content-Type": "model/obj" }, "127.0.0.7");
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatch(/uploads a minute/);
    expect((await upload(strict, "token=nope", "v 0 0 0", { "Content-Type": "model/obj" }, "127.0.0.8")).status).toBe(401);
  } finally {
    await strict.server.close();
  }
});

