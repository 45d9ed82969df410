# rule: no-builtin-weight-norm
import torch
import torch.nn as nn
from torch.nn.utils import parametrize


class WeightNorm(nn.Module):
    """weight = g * v / ||v||, one norm per output row (dim 1 of a Linear's (out, in) weight)."""

    def forward(self, g: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return g * v / v.norm(dim=1, keepdim=True)

    def right_inverse(self, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Called once at registration: the originals that reproduce the current weight.
        # Returning two tensors makes two trainable originals, original0 (g) and original1 (v).
        return weight.norm(dim=1, keepdim=True), weight


def apply_weight_norm(layer: nn.Linear) -> nn.Linear:
    torch.nn.utils.parametrizations.weight_norm(layer, name="weight", dim=0)
    return layer
