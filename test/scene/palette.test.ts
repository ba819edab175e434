import { describe, expect, it } from "vitest";
import { MATERIALS } from "../../shared/scene";
import { UPLOAD_PALETTE, uploadColour } from "../../shared/scene/palette";

const rgb = (c: string) => [1, 3, 5].map((k) => Number.parseInt(c.slice(k, k + 2), 16));
const distance = (a: string, b: string) => Math.hypot(...rgb(a).map((v, k) => v - rgb(b)[k]));
const materialColours: string[] = Object.values(MATERIALS).map((m) => m.color);

describe("uploadColour", () => {
  it("gives the same file the same colour, and spreads files over the palette", () => {
    expect(uploadColour("abc123", [])).toBe(uploadColour("abc123", []));
    const colours = new Set(Array.from({ length: 64 }, (_, i) => uploadColour(`bake-${i}`, [])));
    expect(colours.size).toBe(UPLOAD_PALETTE.length);
  });

  it("never picks a colour close to a material's, nor to a body's already on the table", () => {
    for (const colour of UPLOAD_PALETTE) for (const material of materialColours) expect(distance(colour, material)).toBeGreaterThanOrEqual(60);
    const taken: string[] = [...materialColours];
    for (let i = 0; i < UPLOAD_PALETTE.length; i++) {
      const colour = uploadColour(`upload-${i}`, taken);
      for (const other of taken) expect(distance(colour, other), `${colour} against ${other}`).toBeGreaterThanOrEqual(60);
      taken.push(colour);
    }
  });

  it("with every palette colour taken, picks the one farthest from those on the table", () => {
    const taken = [...UPLOAD_PALETTE.slice(1), UPLOAD_PALETTE[0].replace(/.$/, "0")];
    expect(uploadColour("any", taken)).toBe(UPLOAD_PALETTE[0]);
  });
});
