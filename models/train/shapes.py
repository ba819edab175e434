"""Procedural training solids: seeded, reproducible signed-distance shapes from seven families a user would
squish, sampled into surface points with normals and interior points, normalised to [-1, 1]^3.

Every shape is a function of (seed, index) only, so the train/held-out split is fixed by index:
indices in HELD_OUT_RANGE are never trained on.
"""
import numpy as np

FAMILIES = ["blob", "rounded_box", "capsule_rod", "torus_ring", "smooth_union", "creature", "plate"]
HELD_OUT_START = 100_000  # shape indices >= this are the held-out procedural split


def _rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _smin(a, b, k):
    h = np.clip(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return b * (1 - h) + a * h - k * h * (1 - h)


def sd_sphere(p, c, r):
    return np.linalg.norm(p - c, axis=-1) - r


def sd_ellipsoid(p, c, radii):
    q = (p - c) / radii
    k0 = np.linalg.norm(q, axis=-1)
    k1 = np.linalg.norm(q / radii, axis=-1)
    return k0 * (k0 - 1.0) / np.maximum(k1, 1e-9)


def sd_round_box(p, c, half, r, rot=None):
    q = p - c
    if rot is not None:
        q = q @ rot
    d = np.abs(q) - (half - r)
    return np.linalg.norm(np.maximum(d, 0.0), axis=-1) + np.minimum(np.max(d, axis=-1), 0.0) - r


def sd_capsule(p, a, b, r):
    pa, ba = p - a, b - a
    h = np.clip((pa @ ba) / (ba @ ba), 0.0, 1.0)
    return np.linalg.norm(pa - h[:, None] * ba, axis=-1) - r


def sd_torus(p, c, big, small, rot):
    q = (p - c) @ rot
    xz = np.sqrt(q[:, 0] ** 2 + q[:, 2] ** 2) - big
    return np.sqrt(xz ** 2 + q[:, 1] ** 2) - small


def make_sdf(family, rng):
    """A signed distance function (N x 3 -> N) of one random shape of a family (roughly unit size)."""
    if family == "blob":
        radii = rng.uniform(0.4, 1.0, 3)
        bumps = [(rng.normal(size=3) * 0.5, rng.uniform(0.2, 0.45)) for _ in range(rng.integers(0, 4))]
        k = rng.uniform(0.1, 0.3)

        def f(p):
            d = sd_ellipsoid(p, np.zeros(3), radii)
            for c, r in bumps:
                d = _smin(d, sd_sphere(p, c * radii, r), k)
            return d
        return f
    if family == "rounded_box":
        half = rng.uniform(0.25, 0.9, 3)
        r = rng.uniform(0.02, 0.6) * half.min()
        return lambda p: sd_round_box(p, np.zeros(3), half, r)
    if family == "capsule_rod":
        length, radius = rng.uniform(0.6, 1.8), rng.uniform(0.08, 0.35)
        bend = rng.uniform(0.0, 0.6)
        pts = [np.array([length * (t - 0.5), bend * (4 * (t - 0.5) ** 2 - 1) * 0.5, 0.0]) for t in np.linspace(0, 1, 4)]
        return lambda p: np.min([sd_capsule(p, pts[i], pts[i + 1], radius) for i in range(3)], axis=0)
    if family == "torus_ring":
        big, small = rng.uniform(0.4, 0.8), rng.uniform(0.08, 0.3)
        rot = _rotation(rng)
        squash = rng.uniform(0.6, 1.0)
        return lambda p: sd_torus(p * np.array([1.0, 1.0, squash]), np.zeros(3), big, small, rot)
    if family == "smooth_union":
        parts = []
        for _ in range(rng.integers(2, 5)):
            c = rng.normal(size=3) * 0.4
            kind = rng.integers(0, 3)
            if kind == 0:
                parts.append(lambda p, c=c, r=rng.uniform(0.2, 0.5): sd_sphere(p, c, r))
            elif kind == 1:
                parts.append(lambda p, c=c, h=rng.uniform(0.15, 0.45, 3), rot=_rotation(rng): sd_round_box(p, c, h, 0.05, rot))
            else:
                e = c + rng.normal(size=3) * 0.5
                parts.append(lambda p, c=c, e=e, r=rng.uniform(0.1, 0.3): sd_capsule(p, c, e, r))
        k = rng.uniform(0.05, 0.25)

        def f(p):
            d = parts[0](p)
            for part in parts[1:]:
                d = _smin(d, part(p), k)
            return d
        return f
    if family == "creature":
        body = rng.uniform([0.4, 0.2, 0.2], [0.8, 0.4, 0.4])
        legs = int(rng.choice([2, 4, 6]))
        leg_len, leg_r = rng.uniform(0.3, 0.7), rng.uniform(0.05, 0.12)
        neck = rng.uniform(0.2, 0.6)
        head_r = rng.uniform(0.12, 0.25)
        tail = rng.uniform(0.0, 0.7)
        spread = rng.uniform(-0.3, 0.3)
        parts = []
        for i in range(legs):
            x = body[0] * 0.7 * (2 * (i // 2) / max(1, legs // 2 - 1) - 1) if legs > 2 else 0.0
            z = body[2] * 0.6 * (1 if i % 2 == 0 else -1)
            top = np.array([x, -body[1] * 0.5, z])
            foot = top + np.array([spread * leg_len * 0.5, -leg_len, np.sign(z) * 0.1])
            parts.append(lambda p, a=top, b=foot: sd_capsule(p, a, b, leg_r))
        shoulder = np.array([body[0] * 0.8, body[1] * 0.3, 0.0])
        head = shoulder + np.array([neck * 0.5, neck, 0.0])
        parts.append(lambda p: sd_capsule(p, shoulder, head, leg_r * 1.2))
        parts.append(lambda p: sd_sphere(p, head, head_r))
        if tail > 0.1:
            root = np.array([-body[0] * 0.9, 0.0, 0.0])
            parts.append(lambda p: sd_capsule(p, root, root + np.array([-tail, tail * 0.4, 0.0]), leg_r * 0.7))

        def f(p):
            d = sd_ellipsoid(p, np.zeros(3), body)
            for part in parts:
                d = _smin(d, part(p), 0.06)
            return d
        return f
    if family == "plate":
        half = np.array([rng.uniform(0.5, 1.0), rng.uniform(0.03, 0.1), rng.uniform(0.3, 1.0)])
        if rng.uniform() < 0.4:  # a disk
            r, t = half[0], half[1]
            return lambda p: np.maximum(np.sqrt(p[:, 0] ** 2 + p[:, 2] ** 2) - r, np.abs(p[:, 1]) - t)
        return lambda p: sd_round_box(p, np.zeros(3), half, 0.5 * half[1])
    raise ValueError(family)


_TETRA = np.array([[1, -1, -1], [-1, -1, 1], [-1, 1, -1], [1, 1, 1]], dtype=np.float64)


def _gradient(f, p, eps=1e-4):
    """Tetrahedral finite-difference gradient: 4 evaluations instead of 6."""
    g = np.zeros_like(p)
    for k in _TETRA:
        g += k[None, :] * f(p + eps * k)[:, None]
    return g / (4 * eps)


def sample_shape(index, surface_count=1024, interior_count=2048, seed=0, attempt=0, with_sdf=False):
    """Surface points + unit normals and interior points of shape `index`, normalised to [-1, 1]^3; with_sdf adds
    "sdf", the shape's signed distance in the same normalised coordinates."""
    rng = np.random.default_rng([seed, index, attempt])
    family = FAMILIES[index % len(FAMILIES)]
    f = make_sdf(family, rng)
    retry = lambda: sample_shape(index, surface_count, interior_count, seed, attempt + 1, with_sdf)  # noqa: E731
    if attempt > 20:
        raise RuntimeError(f"could not sample shape {index} ({family})")
    # Bounds from a coarse grid of points near or inside the shape.
    grid = rng.uniform(-2.5, 2.5, size=(20000, 3))
    near = grid[f(grid) < 0.15]
    if len(near) < 20:
        return retry()
    lo, hi = near.min(0) - 0.1, near.max(0) + 0.1
    # Interior: rejection sampling in the box.
    pts, total = [], 0
    for _ in range(200):
        cand = rng.uniform(lo, hi, size=(interior_count * 3, 3))
        inside = cand[f(cand) < 0]
        pts.append(inside)
        total += len(inside)
        if total >= interior_count:
            break
    if total < interior_count:
        return retry()
    interior = np.concatenate(pts)[:interior_count]
    # Surface: points near the surface projected onto it (a few Newton steps), normals from the gradient.
    band = np.zeros((0, 3))
    for _ in range(50):
        cand = rng.uniform(lo, hi, size=(surface_count * 12, 3))
        band = np.concatenate([band, cand[np.abs(f(cand)) < 0.08 * (hi - lo).max()]])
        if len(band) >= surface_count * 1.6:
            break
    band = band[rng.permutation(len(band))[: int(surface_count * 1.6)]]
    for _ in range(5):
        g = _gradient(f, band)
        band = band - (f(band) / np.maximum((g * g).sum(1), 1e-12))[:, None] * g
    normals = _gradient(f, band)
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    ok = np.abs(f(band)) < 1e-3
    band, normals = band[ok], normals[ok]
    if len(band) < surface_count:
        return retry()
    choice = rng.choice(len(band), surface_count, replace=False)
    surface, normals = band[choice], normals[choice]
    # Normalise: bounding-box centre to the origin, largest extent to [-1, 1].
    bmin, bmax = surface.min(0), surface.max(0)
    center, scale = (bmin + bmax) / 2, (bmax - bmin).max() / 2
    shape = {
        "family": family,
        "surface": ((surface - center) / scale).astype(np.float32),
        "normals": normals.astype(np.float32),
        "interior": ((interior - center) / scale).astype(np.float32),
    }
    if with_sdf:
        shape["sdf"] = lambda q: f(q * scale + center) / scale
    return shape


def build_dataset(indices, path=None, **kw):
    """Samples shapes (cached in an .npz when `path` is given)."""
    import os
    if path and os.path.exists(path):
        data = np.load(path)
        if len(data["surface"]) == len(indices):
            return data["surface"], data["normals"], data["interior"]
    shapes = [sample_shape(int(i), **kw) for i in indices]
    surface = np.stack([s["surface"] for s in shapes])
    normals = np.stack([s["normals"] for s in shapes])
    interior = np.stack([s["interior"] for s in shapes])
    if path:
        np.savez(path, surface=surface, normals=normals, interior=interior)
    return surface, normals, interior
