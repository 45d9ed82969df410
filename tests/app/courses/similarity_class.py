"""A class of 30 honest solutions to ``custom-sgd-optimizer`` (the bank's problem), and a planted copy.

Students differ the way real ones do: six ways to write the update (the reference's loop, a helper
method, a module-level function, plain arithmetic on ``.data``, ``setdefault`` for the buffer, a
filtered list of parameters), four ways to check the hyper-parameters and five ways to write the
training function. No two students share both their update and their training function; each
also names things their own way. The copy takes one student's solution, renames its variables
and reorders its functions.
"""

from __future__ import annotations

import re

HEAD = """from collections.abc import Callable, Iterable

import torch
import torch.nn as nn
import torch.nn.functional as F
"""

CHECKS = [
    """        if lr < 0.0:
            raise ValueError(f"invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"invalid momentum: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"invalid weight_decay: {weight_decay}")
""",
    """        for name, value in (("lr", lr), ("momentum", momentum), ("weight_decay", weight_decay)):
            if value < 0:
                raise ValueError(name + " must be non-negative, got " + str(value))
""",
    """        if min(lr, momentum, weight_decay) < 0:
            raise ValueError("hyper-parameters must be >= 0")
""",
    """        assert lr >= 0, "lr"
        assert momentum >= 0 and weight_decay >= 0, "momentum / weight decay"
""",
]

INIT = """
class CustomSGD(torch.optim.Optimizer):
    def __init__(
        self, params: Iterable, lr: float = 0.01, momentum: float = 0.0, weight_decay: float = 0.0
    ) -> None:
{check}        super().__init__(params, {defaults})
"""

DEFAULTS = [
    '{"lr": lr, "momentum": momentum, "weight_decay": weight_decay}',
    "dict(lr=lr, momentum=momentum, weight_decay=weight_decay)",
]

STEPS = [
    # 0: the reference's shape
    """
    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor] | None = None) -> torch.Tensor | None:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, mom, wd = group["lr"], group["momentum"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if wd != 0:
                    d_p = d_p.add(p, alpha=wd)
                if mom != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = d_p.clone()
                    else:
                        state["momentum_buffer"].mul_(mom).add_(d_p)
                    d_p = state["momentum_buffer"]
                p.add_(d_p, alpha=-lr)
        return loss
""",
    # 1: a helper method per parameter
    """
    def _update(self, param, group):
        grad = param.grad + group["weight_decay"] * param if group["weight_decay"] else param.grad
        if group["momentum"]:
            st = self.state[param]
            velocity = st.get("velocity")
            velocity = grad.clone() if velocity is None else velocity * group["momentum"] + grad
            st["velocity"] = velocity
            grad = velocity
        param.sub_(group["lr"] * grad)

    def step(self, closure=None):
        result = None
        if closure:
            with torch.enable_grad():
                result = closure()
        with torch.no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        self._update(param, group)
        return result
""",
    # 2: a module-level pure function
    """
    @torch.no_grad()
    def step(self, closure=None):
        out = closure() if closure is not None and torch.enable_grad() is not None else None
        for g in self.param_groups:
            for w in g["params"]:
                if w.grad is None:
                    continue
                buf = self.state[w].get("buf") if g["momentum"] else None
                new_w, buf = sgd_update(w, w.grad, buf, g["lr"], g["momentum"], g["weight_decay"])
                w.copy_(new_w)
                if buf is not None:
                    self.state[w]["buf"] = buf
        return out


def sgd_update(w, grad, buf, lr, momentum, decay):
    \"\"\"One SGD step for one tensor: returns the new weights and the new momentum buffer.\"\"\"
    direction = grad + decay * w
    if momentum > 0:
        buf = direction.clone() if buf is None else momentum * buf + direction
        direction = buf
    return w - lr * direction, buf
""",
    # 3: plain arithmetic on .data
    """
    def step(self, closure=None):
        loss = closure() if closure else None
        for grp in self.param_groups:
            for t in grp["params"]:
                if t.grad is None:
                    continue
                g = t.grad.data
                if grp["weight_decay"] != 0:
                    g = g + grp["weight_decay"] * t.data
                if grp["momentum"] != 0:
                    if "m" in self.state[t]:
                        m = self.state[t]["m"]
                        m = grp["momentum"] * m + g
                    else:
                        m = g.clone()
                    self.state[t]["m"] = m
                    g = m
                t.data = t.data - grp["lr"] * g
        return loss
""",
    # 4: setdefault for the buffer, in-place ops chained
    """
    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad.add(p, alpha=group["weight_decay"])
                if group["momentum"] > 0:
                    first = "mb" not in self.state[p]
                    mb = self.state[p].setdefault("mb", torch.zeros_like(p))
                    if first:
                        mb.copy_(g)
                    else:
                        mb.mul_(group["momentum"]).add_(g)
                    g = mb
                p.sub_(g, alpha=group["lr"])
        return loss
""",
    # 5: a filtered list of parameters, then one pass with torch ops
    """
    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            with_grads = [p for p in group["params"] if p.grad is not None]
            grads = [torch.add(p.grad, p, alpha=group["weight_decay"]) for p in with_grads]
            if group["momentum"]:
                bufs = []
                for p, grad in zip(with_grads, grads):
                    previous = self.state[p].get("momentum_buffer")
                    if previous is None:
                        current = torch.clone(grad).detach()
                    else:
                        current = torch.add(torch.mul(previous, group["momentum"]), grad)
                    self.state[p]["momentum_buffer"] = current
                    bufs.append(current)
                grads = bufs
            for p, grad in zip(with_grads, grads):
                p.add_(grad, alpha=-group["lr"])
        return loss
""",
]

TRAINS = [
    # a: the plain loop
    """

def custom_sgd_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    X = torch.randn(32, 4)
    y = torch.randn(32, 1)
    optimizer = CustomSGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    losses = []
    for _ in range(15):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    with torch.no_grad():
        final_loss = F.mse_loss(model(X), y).item()
    return {"losses": losses, "final_loss": round(final_loss, 4)}
""",
    # b: a closure
    """

def custom_sgd_test():
    torch.manual_seed(42)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    inputs, targets = torch.randn(32, 4), torch.randn(32, 1)
    opt = CustomSGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)

    def closure():
        opt.zero_grad()
        l = F.mse_loss(net(inputs), targets)
        l.backward()
        return l

    history = [round(float(opt.step(closure)), 4) for _ in range(15)]
    final = F.mse_loss(net(inputs), targets).detach()
    return {"losses": history, "final_loss": round(final.item(), 4)}
""",
    # c: a training helper
    """

def train(model, optimizer, data, target, steps):
    criterion = nn.MSELoss()
    recorded = []
    for step_number in range(steps):
        optimizer.zero_grad(set_to_none=True)
        value = criterion(model(data), target)
        value.backward()
        optimizer.step()
        recorded.append(round(value.item(), 4))
    return recorded


def custom_sgd_test():
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    data = torch.randn(32, 4)
    target = torch.randn(32, 1)
    sgd = CustomSGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    recorded = train(model, sgd, data, target, 15)
    with torch.no_grad():
        last = nn.MSELoss()(model(data), target)
    return {"losses": recorded, "final_loss": round(last.item(), 4)}
""",
    # d: a while loop and a results dict built up front
    """

def custom_sgd_test():
    torch.manual_seed(42)
    layers = [nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)]
    m = nn.Sequential(*layers)
    xs = torch.randn(32, 4)
    ys = torch.randn(32, 1)
    o = CustomSGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    result = {"losses": [], "final_loss": None}
    i = 0
    while i < 15:
        for q in m.parameters():
            q.grad = None
        err = ((m(xs) - ys) ** 2).mean()
        err.backward()
        o.step()
        result["losses"].append(round(err.item(), 4))
        i += 1
    result["final_loss"] = round(((m(xs) - ys) ** 2).mean().item(), 4)
    return result
""",
    # e: a tiny model-building function and a loss function
    """

def build_model():
    torch.manual_seed(42)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def mse(model, X, y):
    return F.mse_loss(model(X), y)


def custom_sgd_test():
    model = build_model()
    X, y = torch.randn(32, 4), torch.randn(32, 1)
    optim = CustomSGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    out = []
    for it in range(15):
        optim.zero_grad()
        current = mse(model, X, y)
        current.backward()
        optim.step()
        out.append(round(current.item(), 4))
    final_loss = round(mse(model, X, y).item(), 4)
    return dict(losses=out, final_loss=final_loss)
""",
]


def honest_class() -> list[str]:
    """30 solutions: every (update, training) combination once, checks and style varied."""
    out = []
    for s, step in enumerate(STEPS):
        for t, train in enumerate(TRAINS):
            check = CHECKS[(s + t) % len(CHECKS)]
            init = INIT.format(check=check, defaults=DEFAULTS[(s * 5 + t) % 2])
            out.append(HEAD + init + step + train)
    return out


RENAMES = {"lr": "rate", "loss": "objective", "group": "pg", "state": "st", "d_p": "upd", "model": "mdl"}


def planted_copy(original: str) -> str:
    """``original`` with its variables renamed and its functions reordered (training first)."""
    renamed = original
    for old, new in RENAMES.items():
        renamed = re.sub(rf"\b{old}\b", new, renamed)
    head, rest = renamed.split("\nclass CustomSGD", 1)
    klass, train = rest.split("\n\ndef ", 1)
    return head + "\ndef " + train.rstrip() + "\n\n\nclass CustomSGD" + klass.rstrip() + "\n"
