# rule: no-builtin-weight-norm
import torch
import torch.nn as nn
from torch.nn.utils import parametrize


class WeightNorm(nn.Module):
    def forward(self, g, v):
        # registers its own parametrization, but the weight comes from the built-in's kernel
        return torch._weight_norm(v, g, 0)

    def right_inverse(self, weight):
        return weight.norm(dim=1, keepdim=True), weight


def apply_weight_norm(layer):
    parametrize.register_parametrization(layer, "weight", WeightNorm())
    return layer
