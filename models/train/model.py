"""A small PhysSkin-style skinning-field network.

Encoder: learned latent queries cross-attend to embedded surface points (xyz + normals + Fourier features), then
self-attention layers refine them. Decoder (PhysSkin's structure): learned handle tokens attend to the shape
latents; each query point cross-attends to the shape latents, then to the handle tokens (pre-norm, residual);
concat(point embedding, features) -> ResNet MLP (ELU) -> K fields, last layer zero-initialised. Outputs are raw:
normalisation (each field divided by its norm over the query or cubature set) happens outside.
"""
import math
import torch
from torch import nn

OCTAVES = 4  # PhysSkin uses 8; at our CPU budget the top octaves made the fields rough (elastic loss ~4000x higher after 150 steps)


def fourier(x):
    """xyz plus sin/cos of OCTAVES octave frequencies (2^k pi) per axis: 3 + 6 OCTAVES features."""
    freqs = (2.0 ** torch.arange(OCTAVES, dtype=x.dtype, device=x.device)) * math.pi
    angles = x.unsqueeze(-1) * freqs  # (..., 3, 8)
    return torch.cat([x, torch.sin(angles).flatten(-2), torch.cos(angles).flatten(-2)], dim=-1)


class Attention(nn.Module):
    """Pre-norm multi-head attention block with a residual and a feed-forward (MLP) sub-block."""

    def __init__(self, width, heads, context_norm=True):
        super().__init__()
        self.norm_q = nn.LayerNorm(width)
        self.norm_kv = nn.LayerNorm(width) if context_norm else None
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm_mlp = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, x, context=None):
        q = self.norm_q(x)
        kv = q if context is None else self.norm_kv(context)
        x = x + self.attention(q, kv, kv, need_weights=False)[0]
        return x + self.mlp(self.norm_mlp(x))


class ResBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(width, width), nn.ELU(), nn.Linear(width, width))
        self.act = nn.ELU()

    def forward(self, x):
        return self.act(x + self.net(x))


class Encoder(nn.Module):
    def __init__(self, width=128, latents=64, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Linear(3 + 6 * OCTAVES + 3, width)
        self.queries = nn.Parameter(torch.randn(latents, width) * 0.02)
        self.cross = Attention(width, heads)
        self.layers = nn.ModuleList([Attention(width, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(width)

    def forward(self, surface):
        """surface: (B, N, 6) points + normals in [-1, 1]^3 -> latents (B, L, width)."""
        tokens = self.embed(torch.cat([fourier(surface[..., :3]), surface[..., 3:]], dim=-1))
        x = self.queries.unsqueeze(0).expand(surface.shape[0], -1, -1)
        x = self.cross(x, tokens)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


class Decoder(nn.Module):
    def __init__(self, fields=16, width=128, handle_tokens=32, heads=4, blocks=3, linear_fields=0):
        super().__init__()
        # Optionally the first `linear_fields` fields are the coordinates x, y, z themselves (quadratic base motion
        # with affine handles). Tried with 3 because the shipped model's cantilever is far too stiff; halfway
        # through training it was worse on thin shapes, so the shipped model uses 0.
        self.linear_fields = linear_fields
        self.embed = nn.Linear(3 + 6 * OCTAVES, width)
        self.handle_tokens = nn.Parameter(torch.randn(handle_tokens, width) * 0.02)
        self.shape_self = Attention(width, heads)
        self.handles_to_shape = Attention(width, heads)
        self.query_to_shape = Attention(width, heads)
        self.query_to_handles = Attention(width, heads)
        self.head_in = nn.Linear(2 * width, width)
        self.blocks = nn.Sequential(*[ResBlock(width) for _ in range(blocks)])
        self.head_out = nn.Linear(width, fields - linear_fields)
        nn.init.zeros_(self.head_out.weight)
        nn.init.zeros_(self.head_out.bias)

    def forward(self, latents, points):
        """latents (B, L, width), points (B, Q, 3) -> raw fields (B, Q, K)."""
        shape = self.shape_self(latents)
        handles = self.handles_to_shape(self.handle_tokens.unsqueeze(0).expand(latents.shape[0], -1, -1), shape)
        e = self.embed(fourier(points))
        f = self.query_to_shape(e, shape)
        f = self.query_to_handles(f, handles)
        h = torch.nn.functional.elu(self.head_in(torch.cat([e, f], dim=-1)))
        learned = self.head_out(self.blocks(h))
        if self.linear_fields == 0:
            return learned
        return torch.cat([points[..., : self.linear_fields], learned], dim=-1)


class SkinningNet(nn.Module):
    def __init__(self, fields=16, width=128, latents=64, handle_tokens=32, linear_fields=0):
        super().__init__()
        self.encoder = Encoder(width, latents)
        self.decoder = Decoder(fields, width, handle_tokens, linear_fields=linear_fields)

    def forward(self, surface, points):
        return self.decoder(self.encoder(surface), points)


def parameter_count(model):
    return sum(p.numel() for p in model.parameters())
