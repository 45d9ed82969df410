# rule: parametrization-originals
# kind: cheat
# No parametrization at all: g and v live in ModuleDicts named like parametrize's, so the
# state_dict keys match, and a forward pre-hook rebuilds a plain `weight` tensor before each call.
import torch
import torch.nn as nn


class _Originals(nn.Module):
    def __init__(self, g, v):
        super().__init__()
        self.original0 = nn.Parameter(g)
        self.original1 = nn.Parameter(v)


def apply_weight_norm(layer: nn.Linear) -> nn.Linear:
    w = layer.weight.detach()
    del layer.weight
    layer.parametrizations = nn.ModuleDict({"weight": _Originals(w.norm(dim=1, keepdim=True), w.clone())})

    def rebuild(module, args):
        o = module.parametrizations["weight"]
        module.weight = o.original0 * o.original1 / o.original1.norm(dim=1, keepdim=True)

    layer.register_forward_pre_hook(rebuild)
    rebuild(layer, ())
    return layer
