// A runtime's requests wait their turn: the next starts only once the one before has finished, failed or not.

import { expect, it } from "vitest";
import { inTurn } from "../../shared/skinning/ort-turns";

it("work asked of one runtime runs one at a time, in order, past failures; another runtime's does not wait", async () => {
  const runtime = {}, other = {};
  const events: string[] = [];
  let finishFirst!: () => void;
  const first = inTurn(runtime, () => new Promise<void>((resolve) => { events.push("first starts"); finishFirst = () => { events.push("first ends"); resolve(); }; }));
  const failing = inTurn(runtime, async () => { events.push("second starts"); throw new Error("declined"); });
  const third = inTurn(runtime, async () => { events.push("third starts"); return 3; });
  await expect(inTurn(other, async () => "elsewhere")).resolves.toBe("elsewhere");
  expect(events).toEqual(["first starts"]);
  finishFirst();
  await first;
  await expect(failing).rejects.toThrow("declined");
  await expect(third).resolves.toBe(3);
  expect(events).toEqual(["first starts", "first ends", "second starts", "third starts"]);
});
