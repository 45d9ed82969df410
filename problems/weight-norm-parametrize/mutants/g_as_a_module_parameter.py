# rule: parametrization-originals
import torch
import torch.nn as nn
from torch.nn.utils import parametrize


class WeightNorm(nn.Module):
    # g lives inside the parametrization module: a parameter, but not one of the originals.
    def __init__(self, weight):
        super().__init__()
        self.g = nn.Parameter(weight.detach().norm(dim=1, keepdim=True))

    def forward(self, v):
        return self.g * v / v.norm(dim=1, keepdim=True)


def apply_weight_norm(layer: nn.Linear) -> nn.Linear:
    parametrize.register_parametrization(layer, "weight", WeightNorm(layer.weight))
    return layer
