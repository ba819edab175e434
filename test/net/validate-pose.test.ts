// What the room accepts as a pose message (docs/protocol.md: `pose`), case by case with the reason a client is told:
// a head and optional hands, each [x, y, z, qx, qy, qz, qw] of finite numbers, positions within reach of the room's
// centre, quaternions of unit length within 5% (normalised on the way in).

import { describe, expect, it } from "vitest";
import { LIMITS } from "../../shared/net/protocol";
import { parsePose } from "../../shared/net/validate";

const HEAD = [0.1, 1.6, -0.2, 0, 0, 0, 1];

function refusal(message: unknown): string {
  const parsed = parsePose(message);
  if (parsed.ok) throw new Error(`accepted ${JSON.stringify(message)}`);
  return parsed.reason;
}

describe("pose messages", () => {
  it("accepts a head alone and with hands, normalising the quaternions", () => {
    const parsed = parsePose({ head: [0.1, 1.6, -0.2, 0, 0, 0, 1.04], left: null, right: [0.3, 1.2, -0.4, 0, 0.6, 0, 0.8] });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.head.slice(0, 3)).toEqual([0.1, 1.6, -0.2]);
    expect(parsed.value.head[6]).toBeCloseTo(1, 15);
    expect(parsed.value.left).toBeNull();
    expect(parsed.value.right).toEqual([0.3, 1.2, -0.4, 0, 0.6, 0, 0.8]);
    const alone = parsePose({ head: HEAD });
    expect(alone.ok && alone.value.left === null && alone.value.right === null).toBe(true);
  });

  it("refuses each malformed part with its reason", () => {
    const cases: [unknown, string][] = [
      [null, "pose must be an object"],
      [[HEAD], "pose must be an object"],
      [{}, "head must be [x, y, z, qx, qy, qz, qw]"],
      [{ head: HEAD.slice(0, 6) }, "head must be [x, y, z, qx, qy, qz, qw]"],
      [{ head: "up" }, "head must be [x, y, z, qx, qy, qz, qw]"],
      [{ head: [0, 1, 0, 0, 0, 0, Number.NaN] }, "head must hold finite numbers"],
      [{ head: [0, "1", 0, 0, 0, 0, 1] }, "head must hold finite numbers"],
      [{ head: [0, 1, Infinity, 0, 0, 0, 1] }, "head must hold finite numbers"],
      [{ head: [LIMITS.reach + 0.1, 1, 0, 0, 0, 0, 1] }, `head position must lie within ${LIMITS.reach} m of the room centre`],
      [{ head: [0, -LIMITS.reach - 1, 0, 0, 0, 0, 1] }, `head position must lie within ${LIMITS.reach} m of the room centre`],
      [{ head: [0, 1, 1e9, 0, 0, 0, 1] }, `head position must lie within ${LIMITS.reach} m of the room centre`],
      [{ head: [0, 1, 0, 0, 0, 0, 1.06] }, "head quaternion must have unit length"],
      [{ head: [0, 1, 0, 0, 0, 0, 0.94] }, "head quaternion must have unit length"],
      [{ head: [0, 1, 0, 0, 0, 0, 0] }, "head quaternion must have unit length"],
      [{ head: HEAD, left: [0, 1, 0] }, "left must be [x, y, z, qx, qy, qz, qw]"],
      [{ head: HEAD, right: [0, 1, 0, 0, 0, 0, 2] }, "right quaternion must have unit length"],
    ];
    for (const [message, reason] of cases) expect(refusal(message), JSON.stringify(message)).toBe(reason);
  });
});
