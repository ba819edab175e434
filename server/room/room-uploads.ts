// A room's added bodies (uploads): each upload announced while it bakes (a placeholder everyone sees), placed when
// baked, and sent away again (faded first) to make room for newer ones. The room hands it what it may touch
// (UploadsHost); server/upload-routes.ts reaches it through the room's announceUpload, uploadProgress,
// uploadBaked and uploadFailed, by remoteRoomCall.

import type { ClockTimer, Delayed } from "@colyseus/timer";
import { UPLOAD_LIMITS, UploadState, type RoomState } from "../../shared/net";
import { isMaterialName, landingSpot, MATERIALS, SoftEntity, tableTop, type SceneWorld } from "../../shared/scene";
import { sharedBodyShape } from "../../shared/scene/body-shape-cache";
import { uploadColour } from "../../shared/scene/palette";
import { STATUS_EVERY_MS } from "../uploads/baker";
import { takePreparedShape } from "../uploads/prepared-shapes";
import { UPLOAD_BAKE_DIRECTORY } from "../world/upload-store";
import { bakeByHash } from "../world/bake-cache";
import type { PlacedBody } from "../world/playground-bodies";
import { makeRoomFor } from "./added-bodies";
import { rigOf } from "../../shared/skinning/baked-rig";
import type { BakedBody } from "../../shared/skinning";
import { uploadedCharacterSpec, type RoomCharacters } from "./room-characters";
import { CHARACTER_BOUND_SHARE, type RoomCharacter } from "./room-character";
import { playgroundConfig, roomFields } from "./playground-config";

/** A soft body in the room: the layout's, or one a visitor added (an upload). */
export interface RoomBody extends PlacedBody {
  /** BodyState.index: its number in snapshots (not its place in the room's list, which shifts as bodies leave). */
  slot: number;
  /** Who added it (ADMIN_OWNER for an admin), "" for the layout's. */
  owner: string;
  /** World tick it joined at. */
  since: number;
  /** Fading out before it leaves. */
  leaving: boolean;
}

/** What of the room the uploads work through. */
export interface UploadsHost {
  readonly roomId: string;
  readonly state: RoomState;
  readonly world: SceneWorld;
  readonly placed: readonly RoomBody[];
  readonly disposed: boolean;
  readonly clock: ClockTimer;
  /** Tells everyone (an `upload` notice). */
  tell(message: string): void;
  /** Why `owner` may not add a mesh now (left, a spectator where they may not play), or null. */
  refusal(owner: string): string | null;
  nameOf(owner: string): string;
  /** Puts a body the world has just taken into the room's state and snapshots (with a snapshot index). */
  enter(body: Omit<RoomBody, "slot">, name: string, texture: string): void;
  /** Takes a body out of the world and the state now; its holders are told `why`. */
  remove(body: RoomBody, why: string): void;
  /** The room's characters: an uploaded rigged mesh joins them. */
  readonly characters: RoomCharacters;
  /** Lets go of every hand on a character (it is leaving), telling each holder `why`. */
  releaseCharacter(character: RoomCharacter, why: string): void;
}

/** An upload being baked, announced to everyone as a placeholder. */
interface BakingUpload {
  id: string;
  owner: string;
  since: number;
  name: string;
  position: [number, number, number];
  /** Fires when its baker has been silent for SILENT_MS (started again by each word from it). */
  giveUp: Delayed;
  /** Rigged: it becomes a character on the room's stage, not a body on the table. */
  character: boolean;
}

/**
 * How long an announced upload may go without word from its baker before its placeholder goes (the process baking
 * it died): the baker tells its status every STATUS_EVERY_MS while it waits and bakes, however long that takes.
 */
const SILENT_MS = 30 * STATUS_EVERY_MS;
/** Material an added body starts as. */
const ADDED_MATERIAL = "jelly";

export class RoomUploads {
  private readonly baking = new Map<string, BakingUpload>();

  constructor(private readonly room: UploadsHost) {}

  /**
   * An upload parsed and about to bake: makes room for it (the owner's and the room's oldest added bodies leave)
   * and shows everyone a placeholder where it will land (a rigged one, a `character`, on the room's stage: the
   * character there leaves once it lands). A refusal says why (its owner left, the room is full of bakes,
   * spectators may no longer add, the room has no stage).
   */
  announce(id: string, owner: string, name: string, character = false): { ok: true } | { ok: false; reason: string } {
    const refusal = this.room.refusal(owner);
    if (refusal) return { ok: false, reason: refusal };
    if (character) return this.announceCharacter(id, owner, name);
    const staying = this.room.placed.filter((p) => !p.leaving), bakingBodies = [...this.baking.values()].filter((u) => !u.character);
    const added = [
      ...staying.filter((p) => p.owner !== "").map((p) => ({ id: p.spec.id, owner: p.owner, since: p.since, baking: false })),
      ...bakingBodies.map((u) => ({ id: u.id, owner: u.owner, since: u.since, baking: true })),
    ];
    const space = makeRoomFor(owner, added, staying.length + bakingBodies.length);
    if ("refusal" in space) return { ok: false, reason: space.refusal };
    for (const leaving of space.leave) this.leave(leaving, `to make room for ${name}`);
    const size = playgroundConfig().uploadSize, occupied: number[] = [];
    for (const p of this.room.placed) if (!p.leaving) occupied.push(...p.entity.proxies.bound);
    // The stage's character (the one on its way there is among the bakes below).
    for (const c of this.room.characters.uploaded()) occupied.push(...c.bound);
    for (const u of this.baking.values()) occupied.push(u.position[0], u.position[1], u.position[2], u.character ? CHARACTER_BOUND_SHARE * UPLOAD_LIMITS.characterSize : size / 2);
    occupied.push(...propsOnTheTable(this.room.world, size));
    return this.showPlaceholder({ id, owner, name, position: landingSpot(playgroundConfig().layout, size, occupied), character: false }, size);
  }

  /** A rigged upload's placeholder, on the stage where it will play (no body makes room for it). */
  private announceCharacter(id: string, owner: string, name: string): { ok: true } | { ok: false; reason: string } {
    const stage = this.room.world.layout.stage;
    if (!stage) return { ok: false, reason: "this room has no place for characters: upload a mesh without a skin" };
    const waiting = [...this.baking.values()].filter((u) => u.character).length;
    if (waiting >= UPLOAD_LIMITS.characters) return { ok: false, reason: "another character is on its way to the room; try again when it has arrived" };
    return this.showPlaceholder({ id, owner, name, position: [stage.centre[0], stage.ground, stage.centre[1]], character: true }, UPLOAD_LIMITS.characterSize);
  }

  /** Shows everyone an upload's placeholder of `size` (m) where it will land, and waits for its bake. */
  private showPlaceholder(upload: Omit<BakingUpload, "since" | "giveUp">, size: number): { ok: true } {
    const { id, owner, name, position } = upload;
    // A bake whose result never arrives (its process died) must not hold its place for ever.
    const giveUp = this.room.clock.setTimeout(() => this.failed(id, "the server baking it stopped answering"), SILENT_MS);
    this.baking.set(id, { ...upload, since: this.room.world.tick, giveUp });
    this.room.state.uploads.set(id, new UploadState({ id, name, owner, stage: "queued", progress: 0, x: position[0], y: position[1], z: position[2], size }));
    return { ok: true };
  }

  /**
   * Where an upload's bake stands (the placeholder's progress): its stage, and while it waits ("queued") the bakes
   * ahead of it and the seconds it may take (0: no estimate).
   */
  progress(id: string, stage: string, progress: number, ahead = 0, secondsLeft = 0): void {
    const upload = this.room.state.uploads.get(id);
    if (!upload) return;
    this.baking.get(id)?.giveUp.reset();
    upload.stage = stage;
    upload.progress = progress;
    upload.ahead = ahead;
    upload.secondsLeft = secondsLeft;
  }

  /** An upload could not be baked: its placeholder goes, and everyone hears why. */
  failed(id: string, reason: string): void {
    const upload = this.baking.get(id);
    if (!upload) return;
    upload.giveUp.clear();
    this.baking.delete(id);
    this.room.state.uploads.delete(id);
    this.room.tell(`${upload.name} could not be added: ${reason}`);
  }

  /**
   * An upload is baked (the bake `hash` is in this machine's cache or Redis): its body lands where announced, or
   * (rigged) it joins the characters on the stage, wearing `texture` (a path pages load; "" for none).
   */
  async baked(id: string, hash: string, texture: string): Promise<void> {
    const upload = this.baking.get(id);
    if (!upload) return;
    let bake;
    try {
      bake = await bakeByHash(hash, UPLOAD_BAKE_DIRECTORY, playgroundConfig().fetchSharedBake);
    } catch (error) {
      bake = null;
      playgroundConfig().log(`room ${this.room.roomId}: bake ${hash} of upload ${id} is unreadable: ${(error as Error).message}`);
    }
    const wanted = (await roomFields()).provider.name;
    // It may have been given up, or the room closed, while the bake was read.
    if (!this.baking.has(id) || this.room.disposed) return;
    if (!bake) return this.failed(id, "its bake was lost");
    const rig = rigOf(bake.body);
    if (upload.character !== (rig !== null)) return this.failed(id, "its bake is not the file that was announced");
    upload.giveUp.clear();
    this.baking.delete(id);
    this.room.state.uploads.delete(id);
    if (rig) return this.landCharacter(upload, hash, bake.body, rig.clips.map((c) => c.name), texture);
    const size = playgroundConfig().uploadSize;
    const spec = { id, mesh: `upload:${hash}`, material: ADDED_MATERIAL, size, position: upload.position } as const;
    // Its shape, built on the bake thread (when this process baked it): only cheap work is left for this tick.
    const prepared = takePreparedShape(hash, size);
    if (prepared) sharedBodyShape(bake.body, size, () => prepared);
    const entity = new SoftEntity(id, bake.body, size, MATERIALS[ADDED_MATERIAL], upload.position);
    // A mesh that brings no colours of its own wears a palette colour unlike the table's bodies' (chosen before it is
    // on the table, set in the same patch as its entry: pages never draw it in its material's colour first).
    const colour = texture || bake.body.renderColors.length ? "" : uploadColour(hash, this.tableColours());
    this.room.world.addBody(entity, upload.position[1]);
    this.room.enter({ spec, entity, bake, owner: upload.owner, since: this.room.world.tick, leaving: false }, upload.name, texture);
    const state = this.room.state.bodies.get(id);
    if (state) state.color = colour;
    this.room.tell(`${this.room.nameOf(upload.owner)} added ${upload.name}`);
    // The network's finish fell back to another provider's fields on this mesh (ritz-finish.ts): said, not hidden.
    if (bake.body.provider !== wanted) this.room.tell(`${upload.name} is soft with ${bake.body.provider} fields: the network's could not be made for it`);
  }

  /** A character lands on the stage (made first, then the one there leaves, its holders told) and plays in place. */
  private landCharacter(upload: BakingUpload, hash: string, body: BakedBody, clips: string[], texture: string): void {
    const characters = this.room.characters, stage = this.room.world.layout.stage!, place = stage.ground > 0 ? "the table" : "the floor";
    const by = this.room.nameOf(upload.owner);
    const spec = uploadedCharacterSpec(upload.id, hash, clips, stage, `${upload.name}, added by ${by}`);
    // Made before the one there leaves: a rig the room cannot play leaves the room as it was, and says why.
    let character: RoomCharacter;
    try {
      // Its subspace, built on the bake thread (when this process baked it).
      character = characters.build(spec, body, upload.name, takePreparedShape(hash, spec.size)?.subspace);
    } catch (error) {
      playgroundConfig().log(`room ${this.room.roomId}: upload ${upload.id} could not become a character: ${(error as Error).stack ?? error}`);
      return this.room.tell(`${upload.name} could not be added: its rig cannot be played (${(error as Error).message})`);
    }
    const there = characters.uploaded();
    for (const old of there.slice(0, Math.max(0, there.length - UPLOAD_LIMITS.characters + 1))) {
      const why = `the ${old.name} left ${place} for ${upload.name}`;
      this.room.releaseCharacter(old, why);
      characters.remove(old);
      this.room.tell(why);
    }
    characters.seat(character, hash, texture, upload.owner);
    this.room.tell(`${by} added ${upload.name}: it plays ${spec.clips.walk} on ${place}`);
  }

  /** The colours the bodies staying on the table are drawn in (their own, or their material's). */
  private tableColours(): string[] {
    const colours: string[] = [];
    this.room.state.bodies.forEach((body) => {
      if (!body.leaving) colours.push(body.color || (isMaterialName(body.material) ? MATERIALS[body.material].color : MATERIALS[ADDED_MATERIAL].color));
    });
    return colours;
  }

  /** An added body fades out (pages see `leaving`) and then leaves the room; whoever held it is told. */
  private leave(id: string, why: string): void {
    const body = this.room.placed.find((p) => p.spec.id === id);
    const state = this.room.state.bodies.get(id);
    if (!body || !state || body.leaving) return;
    body.leaving = true;
    state.leaving = true;
    this.room.tell(`${state.name} left the table ${why}`);
    this.room.clock.setTimeout(() => this.room.remove(body, `the ${state.name} left the room`), UPLOAD_LIMITS.leavingSeconds * 1000);
  }
}

/**
 * The bounding spheres (x, y, z, r each) of the props a body of `size` landing on the table could meet: where each
 * lies now and where it flies home to, if either reaches the table top's height. A body dropped over a block starts
 * deep in it and is flung off the table, again after every flight home.
 */
function propsOnTheTable(world: SceneWorld, size: number): number[] {
  const top = tableTop(world.layout);
  if (!top) return [];
  const out: number[] = [], sphere = new Float64Array(4);
  const add = (x: number, y: number, z: number, r: number) => {
    if (y + r > top.y && y - r < top.y + size) out.push(x, y, z, r);
  };
  for (const prop of world.props) {
    prop.obstacle.boundingSphere(sphere);
    add(sphere[0], sphere[1], sphere[2], sphere[3]);
    add(prop.spec.position[0], prop.spec.position[1], prop.spec.position[2], sphere[3]);
  }
  return out;
}
