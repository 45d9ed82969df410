# rule: input-not-modified
# kind: cheat
# Scales the caller's x by a power of two in place and back: bit for bit the same afterwards.
import torch


def apply_rope(x: torch.Tensor, offset: int = 0, base: float = 10000.0) -> torch.Tensor:
    x.mul_(2.0)
    x.mul_(0.5)
    head_dim, time = x.shape[-1], x.shape[-2]
    if head_dim % 2 != 0:
        raise ValueError(f"RoPE needs an even head dimension, got {head_dim}")
    half = head_dim // 2
    # Angles in float64, then cast: the same numbers whatever the input precision.
    inv_freq = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)  # (D/2,)
    positions = torch.arange(offset, offset + time, dtype=torch.float64)  # (T,)
    angles = positions[:, None] * inv_freq[None, :]  # (T, D/2), broadcasts over (B, H)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
