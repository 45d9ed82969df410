"""Tests for sgd-momentum.

The update rule is checked through the whole loss trajectory and the final parameters, under
several seeds (so a copied example fails), and one case makes sure no ``torch.optim`` optimizer
is constructed (the point of the exercise is writing the update by hand).
"""

import importlib

import torch

from runner.testing import case, set_class_attribute, shifted_seed

# Values are rounded to 4 decimals by the solution: allow a rounding step of slack.
ATOL = 1e-3


@case(public=True, atol=ATOL)
def example(solution):
    return solution.sgd_momentum_test()


@case(atol=ATOL)
def shifted_seed_3(solution):
    with shifted_seed(3):
        return solution.sgd_momentum_test()


@case(atol=ATOL)
def shifted_seed_11(solution):
    with shifted_seed(11):
        return solution.sgd_momentum_test()


@case(atol=ATOL)
def shifted_seed_250(solution):
    with shifted_seed(250):
        return solution.sgd_momentum_test()


@case(atol=ATOL, rule="no-torch-optimizer")
def no_torch_optimizer(solution):
    """Count every torch.optim.Optimizer constructed while the solution runs (must be zero)."""
    original_init = torch.optim.Optimizer.__init__
    created = []

    def counting_init(self, *args, **kwargs):
        created.append(type(self).__name__)
        return original_init(self, *args, **kwargs)

    # The functional forms look their kernels up in their module's globals at every call: a
    # reference to sgd() taken at import is seen through them.
    kernels = []
    for module_name in ("torch.optim.sgd", "torch.optim.adam", "torch.optim.adamw", "torch.optim.rmsprop"):
        module = importlib.import_module(module_name)
        for name in dir(module):
            if name.startswith(("_single_tensor_", "_multi_tensor_", "_fused_")) and callable(
                getattr(module, name)
            ):
                kernels.append((module, name, getattr(module, name)))

    def counting(label, original):
        def wrapper(*args, **kwargs):
            created.append(label)
            return original(*args, **kwargs)

        return wrapper

    set_class_attribute(torch.optim.Optimizer, "__init__", counting_init)
    for module, name, original in kernels:
        setattr(module, name, counting(f"{module.__name__}.{name}", original))
    try:
        with shifted_seed(5):
            result = solution.sgd_momentum_test()
    finally:
        set_class_attribute(torch.optim.Optimizer, "__init__", original_init)
        for module, name, original in kernels:
            setattr(module, name, original)
    return {"optimizers_created": created, "result": result}
