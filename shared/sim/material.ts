// Stable Neo-Hookean (Smith et al. 2018, in the form of METHOD.md section 5):
//   Psi = mu/2 (tr F^T F - 3) - mu (J - 1) + lambda'/2 (J - 1)^2,  lambda' = lambda + mu
// Rest-stable, zero energy and stress on every rotation, defined through inversion (J <= 0).

export interface Material {
  /** Young's modulus, Pa. */
  youngsModulus: number;
  /** Poisson's ratio, in [0, 0.5). */
  poissonRatio: number;
  /** Density, kg/m^3. */
  density: number;
}

export class SimParameterError extends Error {
  override name = "SimParameterError";
}

export interface Lame {
  mu: number;
  /** Classical lambda (what linear elasticity and training use). */
  lambda: number;
  /** lambda' = lambda + mu, the stable Neo-Hookean parameter. */
  lambdaStable: number;
}

export function validateMaterial(material: Material): void {
  const { youngsModulus: e, poissonRatio: nu, density: rho } = material;
  if (!Number.isFinite(e) || e <= 0) throw new SimParameterError(`Young's modulus E must be a positive finite number of pascals, got ${e}`);
  if (e > 1e12) throw new SimParameterError(`Young's modulus E = ${e} Pa is above the supported 1e12 Pa`);
  if (!Number.isFinite(nu) || nu < 0 || nu >= 0.5) throw new SimParameterError(`Poisson's ratio nu must be in [0, 0.5), got ${nu}`);
  if (nu > 0.495) throw new SimParameterError(`Poisson's ratio nu = ${nu} is too close to 0.5 (incompressible); use at most 0.495`);
  if (!Number.isFinite(rho) || rho <= 0) throw new SimParameterError(`density rho must be a positive finite number of kg/m^3, got ${rho}`);
  if (rho > 1e5) throw new SimParameterError(`density rho = ${rho} kg/m^3 is above the supported 1e5`);
}

export function lameParameters(material: Material): Lame {
  const e = material.youngsModulus, nu = material.poissonRatio;
  const mu = e / (2 * (1 + nu));
  const lambda = (e * nu) / ((1 + nu) * (1 - 2 * nu));
  return { mu, lambda, lambdaStable: lambda + mu };
}

/**
 * Energy density of F (row-major 3x3 in f[o..o+8]); writes the first Piola-Kirchhoff stress to p[0..8].
 * Returns Psi. Allocation-free.
 */
export function neoHookeanEnergyAndStress(f: Float64Array, mu: number, lambdaStable: number, p: Float64Array): number {
  const f00 = f[0], f01 = f[1], f02 = f[2];
  const f10 = f[3], f11 = f[4], f12 = f[5];
  const f20 = f[6], f21 = f[7], f22 = f[8];
  // Cofactor matrix = dJ/dF.
  const c00 = f11 * f22 - f12 * f21, c01 = f12 * f20 - f10 * f22, c02 = f10 * f21 - f11 * f20;
  const c10 = f02 * f21 - f01 * f22, c11 = f00 * f22 - f02 * f20, c12 = f01 * f20 - f00 * f21;
  const c20 = f01 * f12 - f02 * f11, c21 = f02 * f10 - f00 * f12, c22 = f00 * f11 - f01 * f10;
  const j = f00 * c00 + f01 * c01 + f02 * c02;
  const i1 = f00 * f00 + f01 * f01 + f02 * f02 + f10 * f10 + f11 * f11 + f12 * f12 + f20 * f20 + f21 * f21 + f22 * f22;
  const jm1 = j - 1;
  const s = lambdaStable * jm1 - mu;
  p[0] = mu * f00 + s * c00; p[1] = mu * f01 + s * c01; p[2] = mu * f02 + s * c02;
  p[3] = mu * f10 + s * c10; p[4] = mu * f11 + s * c11; p[5] = mu * f12 + s * c12;
  p[6] = mu * f20 + s * c20; p[7] = mu * f21 + s * c21; p[8] = mu * f22 + s * c22;
  return 0.5 * mu * (i1 - 3) - mu * jm1 + 0.5 * lambdaStable * jm1 * jm1;
}

/** Energy density only (line searches and reporting). */
export function neoHookeanEnergy(f: Float64Array, mu: number, lambdaStable: number): number {
  const f00 = f[0], f01 = f[1], f02 = f[2];
  const f10 = f[3], f11 = f[4], f12 = f[5];
  const f20 = f[6], f21 = f[7], f22 = f[8];
  const j = f00 * (f11 * f22 - f12 * f21) + f01 * (f12 * f20 - f10 * f22) + f02 * (f10 * f21 - f11 * f20);
  const i1 = f00 * f00 + f01 * f01 + f02 * f02 + f10 * f10 + f11 * f11 + f12 * f12 + f20 * f20 + f21 * f21 + f22 * f22;
  const jm1 = j - 1;
  return 0.5 * mu * (i1 - 3) - mu * jm1 + 0.5 * lambdaStable * jm1 * jm1;
}
