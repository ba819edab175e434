// The bake's prediction for an animated (rigged) mesh: predict on frames spread over its clips, take the frame the
// others agree with most as the anchor (anchor-frame.ts), predict there, and carry the fields back to the bind pose
// through the material correspondence the rig gives (carried-fields.ts).

import { chooseAnchor, predictOnFrame } from "./anchor-frame";
import { strided } from "./baseline";
import { CarriedFields } from "./carried-fields";
import type { FieldTable } from "./field-agreement";
import type { SkinningFieldProvider, SkinningFields } from "./fields";
import { clipTimes, edgeStrainEnergy, frameView, intoFrameView, ShapePoser, type RiggedShape } from "./posed-frames";

export interface AnchoredOptions {
  /** Surface points shown to the provider per frame. */
  surfacePoints: number;
  seed: number;
  /** The shape's interior candidates (normalised, bind pose): the orthonormalising wrapper's inner product and the agreement's points. */
  interior: Float64Array;
  /** Candidate frames per clip. */
  framesPerClip?: number;
  /** Interior points the candidates' agreement is measured at. */
  agreementPoints?: number;
}

export interface AnchorFrame {
  clip: string;
  /** Clip time, s. */
  t: number;
  /** Mean subspace distance of its prediction to the other candidates'. */
  meanDistance: number;
  candidates: number;
  /** The least strained candidate (the other rule), for the record. */
  leastStrain: { clip: string; t: number; meanDistance: number };
}

export const ANCHOR_FRAMES_PER_CLIP = 6;
const AGREEMENT_POINTS = 512;

export async function anchoredFields(shape: RiggedShape, provider: SkinningFieldProvider, count: number, options: AnchoredOptions): Promise<{ fields: SkinningFields; anchor: AnchorFrame }> {
  const poser = new ShapePoser(shape);
  const material = strided(options.interior, options.agreementPoints ?? AGREEMENT_POINTS);
  const materialSkin = poser.skinAt(material);
  const carried = new Float64Array(material.length);
  const candidates: { clip: number; t: number }[] = [];
  const tables: FieldTable[] = [], energies: number[] = [];
  for (let c = 0; c < shape.rig.clips.length; c++) {
    for (const t of clipTimes(shape.rig.clips[c], options.framesPerClip ?? ANCHOR_FRAMES_PER_CLIP)) {
      poser.sample(shape.rig.clips[c], t);
      poser.carry(material, materialSkin, carried);
      const view = frameView(poser.vertices, shape.mesh.triangles, options.surfacePoints, options.seed);
      tables.push((await predictOnFrame(provider, view, carried, count)).table);
      energies.push(edgeStrainEnergy(shape.mesh.positions, poser.vertices, shape.mesh.triangles));
      candidates.push({ clip: c, t });
    }
  }
  const choice = chooseAnchor(tables, energies);
  const pick = candidates[choice.index], least = candidates[choice.leastStrain?.index ?? choice.index];
  poser.sample(shape.rig.clips[pick.clip], pick.t);
  const view = frameView(poser.vertices, shape.mesh.triangles, options.surfacePoints, options.seed);
  const interior = new Float64Array(options.interior.length);
  poser.carry(options.interior, poser.skinAt(options.interior), interior);
  intoFrameView(view, interior, interior);
  const fields = await provider.fieldsFor({ surfacePoints: view.surfacePoints, surfaceNormals: view.surfaceNormals, interiorPoints: interior }, count);
  return {
    fields: new CarriedFields(fields, poser, view),
    anchor: {
      clip: shape.rig.clips[pick.clip].name, t: pick.t, meanDistance: choice.consensus.meanDistance, candidates: candidates.length,
      leastStrain: { clip: shape.rig.clips[least.clip].name, t: least.t, meanDistance: choice.leastStrain?.meanDistance ?? choice.consensus.meanDistance },
    },
  };
}
