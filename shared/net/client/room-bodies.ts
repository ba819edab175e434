// The room's soft bodies as this client has them: built from their bakes when it joins, then following the room
// state's list (uploads come, the oldest go), each fetched and built as it arrives; a bake that fails to load is
// tried again after a while. States for a body still being fetched are kept and applied once it is built.

import { MATERIALS, PLAYGROUND, isMaterialName, type SceneLayout, type SoftEntity } from "../../scene";
import { PredictedScene } from "../../scene/predicted-scene";
import { decodeBakedBody, type BakedBody } from "../../skinning";
import { HANDS } from "../protocol";
import type { RoomState } from "../state";
import { clientBody, keepSnapshot, type BodyInfo, type ClientBody } from "./client-body";

/** How long a client waits before fetching a body's bake again after a failure, ms. */
const BAKE_RETRY_MS = 3000;

export interface RoomBodiesHost {
  state(): RoomState | undefined;
  /** The client has left: nothing more is built. */
  closed(): boolean;
  fetchBake(hash: string): Promise<Uint8Array>;
  /** A body was built (the predictor makes room for its coordinates). */
  added(body: ClientBody): void;
  /** A body is about to leave the scene: this client's grabs on it end and its prediction stops. */
  leaving(body: ClientBody): void;
}

export class RoomBodies {
  readonly bodies = new Map<string, ClientBody>();
  /** Counts changes of `bodies` (and of the characters): pages re-render their meshes when it moves. */
  version = 0;
  /** The world the bodies are predicted in (built with the first bodies). */
  scene!: PredictedScene;
  private readonly listeners = new Set<() => void>();
  /** Bodies the room added since this client built its scene, being fetched, by id. */
  private readonly arriving = new Set<string>();
  /** When a body whose bake failed to load may be tried again (ms since the epoch), by id. */
  private readonly retryAt = new Map<string, number>();
  /**
   * The latest snapshot state of each index no body has here yet (a body being fetched): applied when it is
   * built, so that one that falls asleep at once is not shown at its spawn until something moves it.
   */
  private readonly unknownStates = new Map<number, { tick: number; q: Float64Array }>();
  private byIndex: ClientBody[] = [];

  constructor(private readonly host: RoomBodiesHost) {}

  /** Calls `listener` whenever a body joins or leaves; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /** The bodies the room has when this client joins, and the scene around them (the layout's boxes and props). */
  async build(layout: SceneLayout = PLAYGROUND): Promise<void> {
    const state = this.host.state()!;
    const entities: SoftEntity[] = [];
    for (const info of [...state.bodies.values()].sort((a, b) => a.index - b.index)) {
      const entry = clientBody(info, decodeBakedBody(await this.host.fetchBake(info.bake)));
      entities.push(entry.entity);
      this.bodies.set(info.id, entry);
      this.byIndex[info.index] = entry;
      this.host.added(entry);
    }
    const props = [...(state.props?.values() ?? [])].map((p) => ({ index: p.index, shape: p.shape === "ball" ? ("ball" as const) : ("block" as const), size: p.size }));
    this.scene = new PredictedScene(layout, props, entities, HANDS.length);
  }

  /** Builds the bodies the room has and this client lacks, and drops those the room no longer has. */
  sync(): void {
    const state = this.host.state();
    if (this.host.closed() || !state?.bodies) return;
    const now = Date.now();
    for (const info of state.bodies.values()) {
      if (this.bodies.has(info.id) || this.arriving.has(info.id) || (this.retryAt.get(info.id) ?? 0) > now) continue;
      // The fields are read again from the state once the bake is here (a schema object does not spread).
      void this.add({ id: info.id, bake: info.bake });
    }
    for (const body of [...this.bodies.values()]) if (!state.bodies.has(body.id)) this.remove(body);
  }

  /**
   * A server state of body `index`: kept with the body, which it returns; a body still being fetched gets it once
   * built (undefined now, as for a state of the wrong size).
   */
  serverState(index: number, tick: number, q: Float64Array, now: number): ClientBody | undefined {
    const body = this.byIndex[index];
    if (!body) {
      const early = this.unknownStates.get(index);
      if (early) {
        early.tick = tick;
        early.q = q;
      } else this.unknownStates.set(index, { tick, q });
      return undefined;
    }
    if (q.length !== body.body.n) return undefined;
    keepSnapshot(body, now, tick, q);
    // A body known only from snapshots meets predicted bodies where the server has it.
    this.scene.setBodyState(body.entity, q, tick);
    return body;
  }

  /** A player or an admin changed a body's material: predict with the new one. */
  syncMaterials(): void {
    const states = this.host.state()?.bodies;
    for (const body of this.bodies.values()) {
      const material = states?.get(body.id)?.material;
      if (!material || material === body.material || !isMaterialName(material)) continue;
      body.material = material;
      body.entity.setMaterial(MATERIALS[material]);
    }
  }

  private async add(info: Pick<BodyInfo, "id" | "bake">): Promise<void> {
    this.arriving.add(info.id);
    let baked: BakedBody;
    try {
      baked = decodeBakedBody(await this.host.fetchBake(info.bake));
    } catch {
      // Tried again after a while (a state change or the timer, whichever comes later).
      this.arriving.delete(info.id);
      this.retryAt.set(info.id, Date.now() + BAKE_RETRY_MS);
      setTimeout(() => this.sync(), BAKE_RETRY_MS);
      return;
    }
    this.arriving.delete(info.id);
    this.retryAt.delete(info.id);
    const now = this.host.state()?.bodies?.get(info.id);
    if (this.host.closed() || !now || now.bake !== info.bake || this.bodies.has(info.id)) return;
    const entry = clientBody(now, baked); // as the state says now: a material may have changed while the bake came
    this.scene.addEntity(entry.entity);
    this.bodies.set(info.id, entry);
    this.byIndex[entry.index] = entry;
    this.host.added(entry);
    const early = this.unknownStates.get(entry.index);
    this.unknownStates.delete(entry.index);
    if (early && early.q.length === entry.body.n) {
      entry.snapshots.push({ at: Date.now(), tick: early.tick, q: early.q });
      this.scene.setBodyState(entry.entity, early.q, early.tick);
    }
    this.changed();
  }

  /** A body left the room: this client's grabs on it end, its prediction stops, and it leaves the scene. */
  private remove(body: ClientBody): void {
    this.host.leaving(body);
    this.scene.removeEntity(body.entity);
    this.bodies.delete(body.id);
    if (this.byIndex[body.index] === body) delete this.byIndex[body.index];
    this.unknownStates.delete(body.index);
    this.changed();
  }
}
