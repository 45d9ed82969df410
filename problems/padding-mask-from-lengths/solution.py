import torch


def padding_mask(lengths: torch.Tensor, max_len: int | None = None) -> torch.Tensor:
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    positions = torch.arange(max_len, device=lengths.device)
    # (1, max_len) < (B, 1) broadcasts to (B, max_len): True where the position is a real token.
    return positions[None, :] < lengths[:, None]
