import torch
import torch.nn as nn
from torch.nn.utils import parametrize


class WeightNorm(nn.Module):
    """weight = g * v / ||v||, with the norm of each output row of v.

    forward(g, v) builds the weight from the two originals; right_inverse(weight) returns the
    originals (g, v) that reproduce a given weight: g = row norms, shape (out, 1); v = weight.
    """

    def forward(self, g: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("WeightNorm.forward is not implemented yet")

    def right_inverse(self, weight: torch.Tensor):
        raise NotImplementedError("WeightNorm.right_inverse is not implemented yet")


def apply_weight_norm(layer: nn.Linear) -> nn.Linear:
    """Register WeightNorm on layer.weight with torch.nn.utils.parametrize; return the layer."""
    # TODO: parametrize.register_parametrization(...)
    return layer
