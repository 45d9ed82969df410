import torch
import torch.nn as nn

from runner.testing import case, observe_hooks, set_class_attribute, shifted_seed

# Values are rounded to 4 decimals by the learner: allow a last-digit difference in rounding.
ROUNDED_ATOL = 5e-4


def _spy_forward_hooks(run):
    """Call ``run()`` while recording the output every forward hook is called with.

    The learner's hook is wrapped, not replaced: it still runs and its return value is kept.
    Works for plain hooks ``(module, args, output)`` and ``with_kwargs=True`` hooks alike.
    """
    seen = []
    original = nn.Module.register_forward_hook

    def register(module, hook, *args, **kwargs):
        def spy(*hook_args):
            output = hook_args[-1]
            if isinstance(output, torch.Tensor):
                seen.append(output.detach().clone())
            return hook(*hook_args)

        return original(module, spy, *args, **kwargs)

    set_class_attribute(nn.Module, "register_forward_hook", register)
    try:
        result = run()
    finally:
        set_class_attribute(nn.Module, "register_forward_hook", original)
    return result, seen


@case(public=True, atol=ROUNDED_ATOL)
def example(solution):
    return solution.forward_hook_test()


@case(atol=ROUNDED_ATOL)
def other_seed_1(solution):
    with shifted_seed(1):
        return solution.forward_hook_test()


@case(atol=ROUNDED_ATOL)
def other_seed_2(solution):
    with shifted_seed(2):
        return solution.forward_hook_test()


@case(atol=ROUNDED_ATOL)
def other_seed_5(solution):
    with shifted_seed(5):
        return solution.forward_hook_test()


@case(rule="one-forward-hook-removed")
def uses_forward_hook_and_removes_it(solution):
    with observe_hooks() as log:
        solution.forward_hook_test()
    return log.summary()


@case(atol=1e-5)
def hook_sees_first_linear_output(solution):
    """The hook really ran and saw the first Linear's (pre-ReLU) output."""
    with shifted_seed(3):
        _, seen = _spy_forward_hooks(solution.forward_hook_test)
    return {"hook_ran": len(seen) > 0, "first_output_seen": seen[0] if seen else None}
