import torch


def sliding_windows(x: torch.Tensor, k: int, s: int) -> torch.Tensor:
    """All windows of size k, taken every s positions along the LAST dimension of x, as a view.

    x has shape (..., L). The result has shape (..., n_windows, k) with
    n_windows = (L - k) // s + 1 when L >= k, else 0, and
    out[..., w, j] == x[..., w * s + j]. It must share x's storage (no copy).
    """
    # TODO: a strided view over x's last dimension
    raise NotImplementedError("sliding_windows is not implemented yet")
