# rule: no-full-jacobian
# kind: cheat
# The full Jacobian, fetched by a computed name from a module found at run time, then v @ J.
import importlib

import torch


def vector_jacobian_product(f, x, v):
    functional = importlib.import_module("torch.autograd." + "functional")
    jac = getattr(functional, "jaco" + "bian")(f, x.detach())
    return (v.reshape(-1) @ jac.reshape(v.numel(), -1)).reshape(x.shape)
