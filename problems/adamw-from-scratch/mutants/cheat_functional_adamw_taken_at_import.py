# rule: no-builtin-adam
# kind: cheat
# torch.optim's functional AdamW, bound at import time (before any test can wrap the module attribute),
# called on this optimizer's own state.
import torch
from torch.optim import Optimizer
from torch.optim.adamw import adamw as _functional_adamw


class MyAdamW(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            for p in params:
                if not self.state[p]:
                    self.state[p].update(
                        step=torch.tensor(0.0), exp_avg=torch.zeros_like(p), exp_avg_sq=torch.zeros_like(p)
                    )
            states = [self.state[p] for p in params]
            _functional_adamw(
                params,
                [p.grad for p in params],
                [s["exp_avg"] for s in states],
                [s["exp_avg_sq"] for s in states],
                [],
                [s["step"] for s in states],
                amsgrad=False,
                beta1=group["betas"][0],
                beta2=group["betas"][1],
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                maximize=False,
            )
        return loss


def build_adamw(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    return MyAdamW(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
