# rule: no-builtin-weight-norm
# kind: cheat
# A parametrization of its own whose forward calls the fused kernel through torch.ops.
import torch
import torch.nn as nn
from torch.nn.utils import parametrize


class WeightNorm(nn.Module):
    def forward(self, g, v):
        return torch.ops.aten._weight_norm_interface(v, g, 0)[0]

    def right_inverse(self, weight):
        return weight.norm(dim=1, keepdim=True), weight


def apply_weight_norm(layer: nn.Linear) -> nn.Linear:
    parametrize.register_parametrization(layer, "weight", WeightNorm())
    return layer
