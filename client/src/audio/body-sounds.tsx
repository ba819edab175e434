// Sound, made here with Web Audio (nothing downloaded or shipped): each body knocks when it lands or hits
// something, in its material's voice (jelly plops, rubber thuds, dough pats), and a held body squishes louder and
// higher the harder the hand pulls. Impacts come from where the body is (HRTF panning; the listener follows the
// camera, which in VR is the headset). Browsers start audio only after a gesture: the first press starts it.

import { useFrame, useThree } from "@react-three/fiber";
import { useEffect, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { shownCentre } from "../interaction/surface-pick";
import { ImpactDetector } from "./impact-detector";

type Voice = { band: number; q: number; pitchFrom: number; pitchTo: number; decay: number };
const VOICES: Record<string, Voice> = {
  jelly: { band: 420, q: 1.6, pitchFrom: 520, pitchTo: 170, decay: 0.16 },
  rubber: { band: 900, q: 2.2, pitchFrom: 230, pitchTo: 140, decay: 0.09 },
  dough: { band: 260, q: 0.9, pitchFrom: 160, pitchTo: 90, decay: 0.12 },
};
const HANDS = ["pointer", "left", "right"] as const;

class SoundBank {
  readonly context = new AudioContext();
  private readonly noise: AudioBuffer;
  private readonly squish: { gain: GainNode; filter: BiquadFilterNode };

  constructor() {
    const c = this.context, length = c.sampleRate;
    this.noise = c.createBuffer(1, length, c.sampleRate);
    const data = this.noise.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = Math.random() * 2 - 1;
    // The squish: looped noise through a band-pass, silent until something is held.
    const source = c.createBufferSource();
    source.buffer = this.noise;
    source.loop = true;
    const filter = c.createBiquadFilter();
    filter.type = "bandpass";
    filter.Q.value = 3;
    const gain = c.createGain();
    gain.gain.value = 0;
    source.connect(filter).connect(gain).connect(c.destination);
    source.start();
    this.squish = { gain, filter };
  }

  impact(material: string, loudness: number, x: number, y: number, z: number): void {
    const c = this.context, voice = VOICES[material] ?? VOICES.jelly, t = c.currentTime;
    const panner = new PannerNode(c, { panningModel: "HRTF", distanceModel: "inverse", refDistance: 0.6, positionX: x, positionY: y, positionZ: z });
    const envelope = c.createGain();
    envelope.gain.setValueAtTime(0.0001, t);
    envelope.gain.exponentialRampToValueAtTime(0.6 * loudness, t + 0.004);
    envelope.gain.exponentialRampToValueAtTime(0.0001, t + voice.decay);
    const noise = c.createBufferSource();
    noise.buffer = this.noise;
    const band = new BiquadFilterNode(c, { type: "bandpass", frequency: voice.band, Q: voice.q });
    const tone = new OscillatorNode(c, { type: "sine", frequency: voice.pitchFrom });
    tone.frequency.exponentialRampToValueAtTime(voice.pitchTo, t + voice.decay);
    const toneGain = new GainNode(c, { gain: 0.8 });
    noise.connect(band).connect(envelope);
    tone.connect(toneGain).connect(envelope);
    envelope.connect(panner).connect(c.destination);
    noise.start(t, Math.random() * 0.5, voice.decay + 0.02);
    tone.start(t);
    tone.stop(t + voice.decay + 0.02);
  }

  /** The squish's loudness (0-1) for how hard the page's hands pull, smoothed. */
  setSquish(strain: number): void {
    const t = this.context.currentTime;
    this.squish.gain.gain.setTargetAtTime(strain > 0.05 ? 0.05 + 0.25 * strain : 0, t, 0.05);
    this.squish.filter.frequency.setTargetAtTime(220 + 900 * strain, t, 0.05);
  }

  listenFrom(position: { x: number; y: number; z: number }, forward: { x: number; y: number; z: number }, up: { x: number; y: number; z: number }): void {
    const l = this.context.listener, t = this.context.currentTime;
    if (l.positionX) {
      l.positionX.setValueAtTime(position.x, t); l.positionY.setValueAtTime(position.y, t); l.positionZ.setValueAtTime(position.z, t);
      l.forwardX.setValueAtTime(forward.x, t); l.forwardY.setValueAtTime(forward.y, t); l.forwardZ.setValueAtTime(forward.z, t);
      l.upX.setValueAtTime(up.x, t); l.upY.setValueAtTime(up.y, t); l.upZ.setValueAtTime(up.z, t);
    }
  }
}

export function BodySounds({ client, enabled }: { client: PliantRoomClient; enabled: boolean }) {
  const bank = useRef<SoundBank | null>(null);
  const detectors = useRef(new Map<string, ImpactDetector>()).current;
  const held = useRef(new Set<string>()).current;
  const addHeld = useRef((grab: { body: string }) => void held.add(grab.body)).current;
  const centre = useRef(new Float64Array(3)).current;
  const vectors = useRef({ forward: { x: 0, y: 0, z: -1 }, up: { x: 0, y: 1, z: 0 }, at: new THREE.Vector3() }).current;
  const { gl, camera } = useThree();

  useEffect(() => {
    if (!enabled) return;
    const start = () => {
      bank.current ??= new SoundBank();
      void bank.current.context.resume();
    };
    window.addEventListener("pointerdown", start, { capture: true });
    window.addEventListener("keydown", start, { capture: true });
    gl.xr.addEventListener("sessionstart", start);
    return () => {
      window.removeEventListener("pointerdown", start, { capture: true });
      window.removeEventListener("keydown", start, { capture: true });
      gl.xr.removeEventListener("sessionstart", start);
      void bank.current?.context.close();
      bank.current = null;
    };
  }, [enabled, gl]);

  useFrame((_three, delta) => {
    const b = bank.current;
    if (!b || b.context.state !== "running") return;
    const e = camera.matrixWorld.elements;
    vectors.forward.x = -e[8]; vectors.forward.y = -e[9]; vectors.forward.z = -e[10];
    vectors.up.x = e[4]; vectors.up.y = e[5]; vectors.up.z = e[6];
    b.listenFrom(camera.getWorldPosition(vectors.at), vectors.forward, vectors.up);
    // A held body's jolts are the hand's, not knocks: it stays silent while anyone holds it.
    held.clear();
    client.room.state?.grabs?.forEach(addHeld);
    for (const body of client.bodies.values()) {
      let detector = detectors.get(body.id);
      if (!detector) detectors.set(body.id, (detector = new ImpactDetector()));
      const c = shownCentre(body, centre);
      const loudness = detector.update(c[0], c[1], c[2], delta);
      if (loudness > 0 && !held.has(body.id)) b.impact(body.material, loudness, c[0], c[1], c[2]);
    }
    let strain = 0;
    for (const hand of HANDS) strain = Math.max(strain, client.grabStrain(hand));
    b.setSquish(strain);
  });
  return null;
}
