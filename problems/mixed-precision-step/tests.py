"""Tests for mixed-precision-step.

Steps are run with a real CPU GradScaler and bfloat16 autocast: results, parameters and the scaler's
scale are compared over several steps, including an overflowing step that must be skipped, active
clipping (which must see unscaled gradients), Adam, and the dtype of the forward pass.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from runner.testing import case, set_class_attribute, writes_during

RTOL = 1e-3
ATOL = 1e-5


def setup(seed, n=6, optimizer="sgd", lr=0.1, growth_interval=2000):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    gen = torch.Generator().manual_seed(seed + 1000)
    x = torch.randn(n, 3, generator=gen)
    y = torch.randn(n, 1, generator=gen)
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=growth_interval)
    return model, opt, scaler, x, y


def params(model):
    return [p.detach().clone() for p in model.parameters()]


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
    inputs = torch.tensor([[1.0, -1.0, 0.5], [0.5, 2.0, -1.0], [-1.5, 0.0, 1.0], [2.0, 1.0, 1.0]])
    targets = torch.tensor([[1.0], [-1.0], [0.5], [2.0]])
    result = solution.amp_train_step(model, optimizer, scaler, F.mse_loss, inputs, targets, 1.0)
    return {
        "loss": round(result["loss"], 6),
        "grad_norm": round(result["grad_norm"], 6),
        "stepped": result["stepped"],
        "scale": result["scale"],
    }


@case(rtol=RTOL, atol=ATOL)
def scale_grows_over_good_steps(solution):
    model, opt, scaler, x, y = setup(1, growth_interval=2)
    results = [solution.amp_train_step(model, opt, scaler, F.mse_loss, x, y, 1.0) for _ in range(5)]
    return {"results": results, "params": params(model)}


@case(rtol=RTOL, atol=ATOL)
def overflowing_step_is_skipped(solution):
    model, opt, scaler, x, y = setup(2)
    first = solution.amp_train_step(model, opt, scaler, F.mse_loss, x, y, 1.0)
    before = params(model)
    bad_targets = y.clone()
    bad_targets[0, 0] = float("inf")
    skipped = solution.amp_train_step(model, opt, scaler, F.mse_loss, x, bad_targets, 1.0)
    unchanged = all(torch.equal(a, b) for a, b in zip(before, params(model)))
    after = solution.amp_train_step(model, opt, scaler, F.mse_loss, x, y, 1.0)
    return {
        "results": [first, skipped, after],
        "params_unchanged_by_skipped_step": unchanged,
        "params": params(model),
    }


@case(rtol=RTOL, atol=ATOL)
def clipping_sees_unscaled_gradients(solution):
    model, opt, scaler, x, y = setup(3, lr=0.5)
    results = [solution.amp_train_step(model, opt, scaler, F.mse_loss, x, y, 0.05) for _ in range(3)]
    return {"results": results, "params": params(model)}


@case(rtol=RTOL, atol=ATOL)
def with_adam_and_l1(solution):
    model, opt, scaler, x, y = setup(4, optimizer="adam", lr=0.01)
    results = [solution.amp_train_step(model, opt, scaler, F.l1_loss, x, y, 0.5) for _ in range(4)]
    return {"results": results, "params": params(model)}


@case
def forward_runs_in_bfloat16(solution):
    model, opt, scaler, x, y = setup(5)
    seen = []
    handles = [
        layer.register_forward_hook(lambda m, i, o: seen.append([str(i[0].dtype), str(o.dtype)]))
        for layer in (model[0], model[2])
    ]
    try:
        solution.amp_train_step(model, opt, scaler, F.mse_loss, x, y, 1.0)
    finally:
        for handle in handles:
            handle.remove()
    return {"layer_dtypes": seen, "param_dtypes": [str(p.dtype) for p in model.parameters()]}


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    model, opt, scaler, x, y = setup(6)
    x_before, y_before = x.clone(), y.clone()
    versions = (x._version, y._version)  # modify-and-restore moves them
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    result, written = writes_during(lambda: solution.amp_train_step(model, opt, scaler, F.mse_loss, x, y, 1.0), x, y)
    return {
        "written_by_any_alias": written,
        "result": result,
        "unchanged": torch.equal(x, x_before) and torch.equal(y, y_before),
        "writes": [x._version - versions[0], y._version - versions[1]],
    }


@case(rule="step-through-the-scaler")
def steps_only_through_the_scaler(solution):
    """Every step of the optimizer's class is counted, and so are those scaler.step makes: a step
    taken outside scaler.step (however it is reached) is the solution's own."""
    model, opt, scaler, x, y = setup(7)
    inside = [False]
    direct = []
    cls = type(opt)
    class_step = cls.step
    scaler_step = scaler.step

    def counting_class_step(self, *args, **kwargs):
        if self is opt and not inside[0]:
            direct.append(1)
        return class_step(self, *args, **kwargs)

    def watched_scaler_step(*args, **kwargs):
        inside[0] = True
        try:
            return scaler_step(*args, **kwargs)
        finally:
            inside[0] = False

    set_class_attribute(cls, "step", counting_class_step)
    scaler.step = watched_scaler_step
    try:
        for _ in range(2):
            solution.amp_train_step(model, opt, scaler, F.mse_loss, x, y, 1.0)
    finally:
        set_class_attribute(cls, "step", class_step)
    return {"direct_optimizer_steps": len(direct)}
