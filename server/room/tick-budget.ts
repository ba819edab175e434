// The room tick's time policy. The soft bodies step until SOFT_BODIES_UNTIL_MS after the tick began, so its inputs
// and Rapier count against them too, and a step still running then stops there (SoftBody.step's deadline). The
// characters and the snapshot's encoding after them then end the tick within about 8 ms (p99), half the 16.7 ms period:
// the send after the tick, other rooms and the garbage collector have the rest. A tick that sends a snapshot also
// leaves the send's expected time (SnapshotSender.reserveMs).

/** Where the soft bodies stop, ms after the tick's start. */
export const SOFT_BODIES_UNTIL_MS = 6;
