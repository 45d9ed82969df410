import torch
import torch.nn as nn

from runner.testing import case, observe_hooks, set_class_attribute, shifted_seed

# Values are rounded to 4 decimals by the learner: allow a last-digit difference in rounding.
ROUNDED_ATOL = 5e-4


def _spy_forward_hook_returns(run):
    """Call ``run()`` while recording what every forward hook returns.

    The learner's hook is wrapped, not replaced: it still runs and its return value is passed on.
    """
    returned = []
    original = nn.Module.register_forward_hook

    def register(module, hook, *args, **kwargs):
        def spy(*hook_args):
            result = hook(*hook_args)
            returned.append(result.detach().clone() if isinstance(result, torch.Tensor) else result)
            return result

        return original(module, spy, *args, **kwargs)

    set_class_attribute(nn.Module, "register_forward_hook", register)
    try:
        value = run()
    finally:
        set_class_attribute(nn.Module, "register_forward_hook", original)
    return value, returned


@case(public=True, atol=ROUNDED_ATOL)
def example(solution):
    return solution.modify_hook_test()


@case(atol=ROUNDED_ATOL)
def other_seed_1(solution):
    with shifted_seed(1):
        return solution.modify_hook_test()


@case(atol=ROUNDED_ATOL)
def other_seed_3(solution):
    with shifted_seed(3):
        return solution.modify_hook_test()


@case(atol=ROUNDED_ATOL)
def other_seed_6(solution):
    with shifted_seed(6):
        return solution.modify_hook_test()


@case(rule="forward-hook-returns-clamped")
def uses_forward_hook_and_removes_it(solution):
    with observe_hooks() as log:
        solution.modify_hook_test()
    return log.summary()


@case(atol=1e-5, rule="forward-hook-returns-clamped")
def hook_returns_clamped_tensor(solution):
    """The forward hook itself returns the clamped activation (it is not modified elsewhere)."""
    with shifted_seed(2):
        _, returned = _spy_forward_hook_returns(solution.modify_hook_test)
    tensors = [r for r in returned if isinstance(r, torch.Tensor)]
    return {
        "hook_calls": len(returned),
        "returns_tensor": [isinstance(r, torch.Tensor) for r in returned],
        "within_bounds": [bool(t.abs().max().item() <= 0.5 + 1e-6) for t in tensors],
        "returned": tensors[0] if tensors else None,
    }
