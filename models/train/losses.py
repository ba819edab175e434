"""Self-supervised losses (METHOD.md section 4) and the ConFIG two-gradient combination."""
import torch

STENCIL_STEP = 1e-3  # finite-difference step in normalised coordinates ([-1, 1]^3)
E, NU = 5e5, 0.45
MU = E / (2 * (1 + NU))
LAMBDA = E * NU / ((1 + NU) * (1 - 2 * NU))


def stencil(points):
    """(B, P, 3) -> (B, 7P, 3): each point, then +-h along x, y, z."""
    offsets = torch.zeros(7, 3, dtype=points.dtype, device=points.device)
    for a in range(3):
        offsets[1 + 2 * a, a] = STENCIL_STEP
        offsets[2 + 2 * a, a] = -STENCIL_STEP
    return (points.unsqueeze(2) + offsets).reshape(points.shape[0], -1, 3)


def stencil_fields(raw_points, raw_stencil, ridge=1e-4):
    """The physics regulariser's fields beside the span loss: raw values at P points (B, P, K) fix each field's
    RMS and the orthonormalisation (W L^-T, as fields_and_gradients), which are applied to raw values on a
    stencil of Q other points (B, 7Q, K). Few stencil points would make that Gram matrix singular; P points do not.
    Returns the unit-RMS fields at the P points, and the orthonormal fields and gradients at the Q points."""
    b, p, k = raw_points.shape
    rms = torch.sqrt((raw_points ** 2).mean(dim=1, keepdim=True) + 1e-12)
    normalised = raw_points / rms
    gram = torch.einsum("bpk,bpl->bkl", normalised, normalised) / p + ridge * torch.eye(k, dtype=raw_points.dtype)
    lower = torch.linalg.cholesky(gram)
    w = torch.linalg.solve_triangular(lower, (raw_stencil / rms).transpose(1, 2), upper=False).transpose(1, 2)
    w = w.reshape(b, -1, 7, k)
    grad = torch.stack([(w[:, :, 1 + 2 * a] - w[:, :, 2 + 2 * a]) / (2 * STENCIL_STEP) for a in range(3)], dim=-1)
    return normalised, w[:, :, 0], grad


def fields_and_gradients(raw, points_count, orthonormal=True, ridge=1e-4):
    """Raw decoder output on the stencil (B, 7P, K) -> unit-RMS fields (B, P, K), and the fields the elastic loss
    sees with their gradients (B, P, K), (B, P, K, 3).

    Each field is divided by its RMS over the P centre points (on-the-fly normalisation). The elastic loss sees
    them orthonormalised (W L^-T with L L^T = W^T W / P + ridge I): that measures the subspace they span, which is
    all the solver uses, and makes its minimum the K smoothest orthogonal fields (Rayleigh-Ritz) instead of a
    collapse. The ridge keeps training stable; it also damps directions the fields barely span, which a per-shape
    optimiser exploits, so per_shape.py uses a far smaller one."""
    b, _, k = raw.shape
    w = raw.reshape(b, points_count, 7, k)
    rms = torch.sqrt((w[:, :, 0] ** 2).mean(dim=1, keepdim=True) + 1e-12)  # (B, 1, K)
    w = w / rms.unsqueeze(2)
    normalised = w[:, :, 0]
    if orthonormal:
        gram = torch.einsum("bpk,bpl->bkl", normalised, normalised) / points_count
        gram = gram + ridge * torch.eye(k, dtype=gram.dtype, device=gram.device)
        lower = torch.linalg.cholesky(gram)  # (B, K, K)
        # w L^-T for every stencil value: solve L X^T = w^T.
        flat = w.reshape(b, -1, k).transpose(1, 2)  # (B, K, 7P)
        w = torch.linalg.solve_triangular(lower, flat, upper=False).transpose(1, 2).reshape(b, points_count, 7, k)
    grad = torch.stack([(w[:, :, 1 + 2 * a] - w[:, :, 2 + 2 * a]) / (2 * STENCIL_STEP) for a in range(3)], dim=-1)
    return normalised, w[:, :, 0], grad


def deformation_gradients(points, weights, grads, transforms):
    """F = I + sum_h (w_h A_h + (A_h x + b_h) grad w_h^T) for transforms (B, T, K+1, 3, 4), the constant channel
    first. Returns (B, T, P, 3, 3)."""
    b, p, k = weights.shape
    ones = torch.ones(b, p, 1, dtype=weights.dtype, device=weights.device)
    w = torch.cat([ones, weights], dim=-1)  # (B, P, K+1)
    g = torch.cat([torch.zeros(b, p, 1, 3, dtype=grads.dtype, device=grads.device), grads], dim=2)
    a, t = transforms[..., :3], transforms[..., 3]
    u = torch.einsum("bthij,bpj->btphi", a, points) + t.unsqueeze(2)  # (B, T, P, K+1, 3)
    f = torch.einsum("bph,bthij->btpij", w, a) + torch.einsum("btphi,bphj->btpij", u, g)
    return f + torch.eye(3, dtype=f.dtype, device=f.device)


def elastic_energy_density(f, blend):
    """Mean of (1 - t) Psi_linear + t Psi_NeoHookean over everything."""
    eps = 0.5 * (f + f.transpose(-1, -2)) - torch.eye(3, dtype=f.dtype, device=f.device)
    tr = eps.diagonal(dim1=-2, dim2=-1).sum(-1)
    linear = MU * (eps * eps).sum((-1, -2)) + 0.5 * LAMBDA * tr * tr
    if blend <= 0:
        return linear.mean()
    j = torch.det(f)
    i1 = (f * f).sum((-1, -2))
    neo = 0.5 * MU * (i1 - 3) + 0.5 * LAMBDA * (j - 1) ** 2 - MU * (j - 1)
    return ((1 - blend) * linear + blend * neo).mean()


def orthogonality(weights):
    """MSE of W^T W / P against I over the K unit-RMS fields (the rigid channel is not among them)."""
    p, k = weights.shape[1], weights.shape[2]
    gram = torch.einsum("bpk,bpl->bkl", weights, weights) / p
    return ((gram - torch.eye(k, dtype=gram.dtype, device=gram.device)) ** 2).mean()


def config_direction(g1, g2):
    """ConFIG (arXiv 2408.11104) for two flattened gradients: a direction with a positive dot product with both,
    scaled by their projections onto it."""
    def unit(g):
        return g / (g.norm() + 1e-20)

    def reject(a, b):  # b minus its component along a
        return b - (a @ b) / (a @ a + 1e-20) * a
    v = unit(unit(reject(g1, g2)) + unit(reject(g2, g1)))
    return (g1 @ v + g2 @ v) * v


def span_loss(raw, teacher, eigenvalues, ridge=1e-6):
    """Distillation (issue 11): how much of each teacher eigenmode lies outside the span of the constant and the
    predicted fields, over the P sample points (equal volume each): sum_j a_j |t_j - P t_j|^2 / sum_j a_j with
    unit-RMS, mean-free teacher modes t_j, so 0 when the span holds every mode and 1 when it misses all. Order and
    sign within (nearly) equal eigenvalues do not matter. a_j = lambda_1 / lambda_j weights the lower modes, the
    ones the solver's lowest frequencies come from.

    raw (B, P, K) fields at the points, teacher (B, P, T), eigenvalues (B, T)."""
    b, p, k = raw.shape
    rms = torch.sqrt((raw ** 2).mean(dim=1, keepdim=True) + 1e-12)
    w = torch.cat([torch.ones(b, p, 1, dtype=raw.dtype, device=raw.device), raw / rms], dim=-1)
    gram = torch.einsum("bpk,bpl->bkl", w, w) / p + ridge * torch.eye(k + 1, dtype=raw.dtype, device=raw.device)
    lower = torch.linalg.cholesky(gram)
    q = torch.linalg.solve_triangular(lower, w.transpose(1, 2), upper=False).transpose(1, 2)  # orthonormal over the points
    t = teacher - teacher.mean(dim=1, keepdim=True)
    t = t / torch.sqrt((t ** 2).mean(dim=1, keepdim=True) + 1e-12)
    residual = t - q @ (torch.einsum("bpk,bpt->bkt", q, t) / p)
    missed = (residual ** 2).mean(dim=1)  # (B, T), each in [0, 1]
    weights = eigenvalues[:, :1] / eigenvalues
    return ((missed * weights).sum(-1) / weights.sum(-1)).mean()
