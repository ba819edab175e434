// The policy numbers of characters: how soft, how hard a hand may pull, how much a step may cost. The room's
// characters take their size from the layout (the playground's fox: 0.8 m).

import type { MaterialPreset } from "../scene/materials";

/** The CLIs' default largest extent of a character (nose to tail tip), m. */
export const CHARACTER_SIZE = 1;

/**
 * Flesh: far softer than the room's jelly so that ears, cheeks and belly answer a trot, and heavily damped (Rayleigh
 * beta, s) so that the wobble settles within a second or two of a stop.
 */
export const FLESH: Readonly<MaterialPreset> = Object.freeze({ youngsModulus: 5e3, poissonRatio: 0.45, density: 1000, damping: 0.04, color: "#d9773a" });

/** The size FLESH is tuned for (the room's fox, whose secondary-motion network learned it), m. */
export const FLESH_TUNED_SIZE = 0.8;

/**
 * A room character's flesh at `size` m: FLESH with its stiffness scaled by (size / FLESH_TUNED_SIZE)^2, so that a
 * clip strains it alike at any size (strain ~ density x acceleration x size / stiffness, and a clip's accelerations
 * grow with the size): a visitor's 0.3 m character jiggles as visibly for its size as the 0.8 m fox.
 */
export function fleshFor(size: number): MaterialPreset {
  return { ...FLESH, youngsModulus: FLESH.youngsModulus * (size / FLESH_TUNED_SIZE) ** 2 };
}

/**
 * How many of a room's characters, in the order they came (the room's own first), have their untouched flesh off
 * their networks' clips moved by the room's linearised flesh (about 0.7 ms a tick each on the fox); every page moves
 * the others' itself with the spring layer (spring-character.ts, about 0.4 ms a frame, nothing fitted), so a visitor's
 * character costs the room's tick nothing while nobody touches it. The room's SERVER_FLESH_CHARACTERS.
 */
export const SERVER_FLESH_CHARACTERS = 1;

/**
 * How far (m) a hand may draw away from the point it grabbed, where the character's rig carries that point, before
 * the character slips out of it: the rig walks on whatever the hand does, so a held point would otherwise be drawn
 * out across the room. The flesh itself follows the hand only as far as FLESH_LIMIT lets it.
 */
export const CHARACTER_GRAB_SLIP = 0.1;

/**
 * What a character's flesh may do, however it is moved (flesh-limit.ts): its soft displacement moves a surface point
 * at most `reach` x its size from where the rig puts it (4 cm on the 0.8 m fox), and changes the distance between
 * neighbouring surface samples (about 3 cm apart on the fox) by at most `stretch` of it, so that a drawn triangle
 * stays within about 1.3x of the rig's (1.4x squashed). Past `knee` of either, the whole soft part is scaled down
 * smoothly. Measured on the fox, unlimited: a hand drawn 10 cm from its back stretched triangles 3.1x and moved its
 * skin 13 cm (21x and 25 cm holding the walking fox's flank); the solver's own walk squashed its paws' triangles 1.6x
 * at every stride. Limited: 1.19x and 1.44x (squashed), about 2 cm, for 5-6% less wobble shown on average, walking or running (the solver itself is not limited).
 */
export const FLESH_LIMIT = Object.freeze({ reach: 0.05, stretch: 0.3, knee: 0.5 });

/**
 * How far (m) a walking character's skin keeps from a prop on the floor, wherever its clips put it: beyond the 5 cm
 * at which the room hands its flesh from its network or the linearised flesh to the solver (room-character.ts), with room for the flesh's
 * reach. The layouts' floor props rest at least this far from its loop, and it walks round any prop moved nearer.
 */
export const CHARACTER_PROP_CLEARANCE = 0.1;

/**
 * Most solver iterations a character's step may take in a room (a soft body's default is 12): its flesh is stirred
 * every step, and the cap bounds the steps of a hard pull rather than the typical one (5-6 iterations).
 */
export const CHARACTER_MAX_ITERATIONS = 8;

/**
 * A character's solver (CharacterBody's default: the room's, the CLIs' reference and the layers' training data)
 * stops when an iteration moves its flesh by less than this fraction of its diagonal (RMS; a soft body's default is
 * 1e-5: the flesh moves millimetres on a body a metre long). At 1e-5 each step left enough of the fox's flesh
 * unsolved that, standing still, it wandered by 8-50 mm a snapshot for ever (so it was never left out of one); at
 * 1e-6 by 1-2 mm; at 1e-7 by 0.1-0.2 mm, a prop pressed into it or not, for ~10% more iterations a step walking
 * (5.0 to 5.5). Stopped after 3 s of Run at 1e-5 its energy rose by over a fifth in 36 of the next 180 steps, the
 * flesh still 0.5 mm off its rig after 3 s; at 1e-7 in none, 0.0007 mm (4.6 to 7.3 iterations a step running).
 */
export const CHARACTER_TOLERANCE = 1e-7;
