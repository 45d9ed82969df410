import torch.nn as nn

from runner.testing import case, observe_hooks, set_class_attribute, shifted_seed


def _spy_full_backward_hooks(run):
    """Call ``run()`` while recording what every full backward hook receives.

    The learner's hook is wrapped (not replaced): it still runs and its return value is kept.
    """
    calls = []
    original = nn.Module.register_full_backward_hook

    def register(module, hook, *args, **kwargs):
        def spy(mod, grad_input, grad_output):
            calls.append(
                {
                    "grad_input": [None if g is None else g.detach().clone() for g in grad_input],
                    "grad_output": [None if g is None else g.detach().clone() for g in grad_output],
                }
            )
            return hook(mod, grad_input, grad_output)

        return original(module, spy, *args, **kwargs)

    set_class_attribute(nn.Module, "register_full_backward_hook", register)
    try:
        result = run()
    finally:
        set_class_attribute(nn.Module, "register_full_backward_hook", original)
    return result, calls


@case(public=True)
def example(solution):
    return solution.backward_hook_test()


@case
def other_seed_1(solution):
    with shifted_seed(1):
        return solution.backward_hook_test()


@case
def other_seed_7(solution):
    with shifted_seed(7):
        return solution.backward_hook_test()


@case(rule="one-full-backward-hook-removed")
def uses_full_backward_hook_and_removes_it(solution):
    with observe_hooks() as log:
        solution.backward_hook_test()
    return log.summary()


@case(atol=1e-5)
def hook_sees_module_input_gradients(solution):
    """The hook really ran on the second Linear: one grad_input (w.r.t. its input), the right values."""
    with shifted_seed(3):
        _, calls = _spy_full_backward_hooks(solution.backward_hook_test)
    return {
        "calls": len(calls),
        "grad_input_lengths": [len(c["grad_input"]) for c in calls],
        "grad_output": [c["grad_output"][0] for c in calls],
        "grad_input": [c["grad_input"][0] for c in calls],
    }
