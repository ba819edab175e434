// What the headset's hands are doing this frame: read by the HUD and by the browser tests (window.pliant).
export interface HandInputs {
  /** Grip (controller) or wrist (hand) position, m. */
  grip: [number, number, number] | null;
  /** Index fingertip position with hand tracking, m. */
  indexTip: [number, number, number] | null;
  /** Thumb-to-index distance with hand tracking, m. */
  pinchGap: number | null;
  /** Controller target ray: origin (3) then unit direction (3), m. */
  ray: [number, number, number, number, number, number] | null;
  /** Body this hand holds. */
  holding: string | null;
}

export const xrInputs: Record<"left" | "right", HandInputs> = {
  left: { grip: null, indexTip: null, pinchGap: null, ray: null, holding: null },
  right: { grip: null, indexTip: null, pinchGap: null, ray: null, holding: null },
};
