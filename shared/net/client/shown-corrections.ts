// What a predicted body shows besides its prediction: a correction still fading (q-space; shown = prediction +
// offset), after a reconciliation moved the prediction or a hand-over to or from interpolation.

import type { ClientBody } from "./client-body";

/** Below this (q units) a fading correction is gone. */
const GONE = 1e-6;

export class ShownCorrections {
  private readonly offsets = new Map<ClientBody, { q: Float64Array; fadeMs: number }>();

  /** Shows `from` instead of `to` now, fading towards `to` with time constant `fadeMs` (adds to a fade under way). */
  add(body: ClientBody, from: Float64Array, to: Float64Array, fadeMs: number): void {
    const offset = this.offsets.get(body) ?? { q: new Float64Array(body.body.n), fadeMs };
    offset.fadeMs = Math.max(fadeMs, this.offsets.has(body) ? offset.fadeMs : 0);
    let largest = 0;
    for (let i = 0; i < offset.q.length; i++) {
      offset.q[i] += from[i] - to[i];
      largest = Math.max(largest, Math.abs(offset.q[i]));
    }
    if (largest > GONE) this.offsets.set(body, offset);
  }

  /** Fades the body's correction by `elapsed` ms and adds it to its displayQ. */
  apply(body: ClientBody, elapsed: number): void {
    const offset = this.offsets.get(body);
    if (!offset) return;
    const fade = Math.exp(-elapsed / offset.fadeMs);
    let largest = 0;
    for (let i = 0; i < offset.q.length; i++) {
      offset.q[i] *= fade;
      body.displayQ[i] += offset.q[i];
      largest = Math.max(largest, Math.abs(offset.q[i]));
    }
    if (largest < GONE) this.offsets.delete(body);
  }

  /** Adds the body's current correction to `q` (what is shown, for a state q). */
  addTo(body: ClientBody, q: Float64Array): void {
    const offset = this.offsets.get(body);
    if (offset) for (let i = 0; i < q.length; i++) q[i] += offset.q[i];
  }

  forget(body: ClientBody): void {
    this.offsets.delete(body);
  }
}
