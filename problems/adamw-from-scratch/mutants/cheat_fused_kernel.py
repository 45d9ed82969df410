# rule: no-builtin-adam
# kind: cheat
# The fused kernel torch.optim.AdamW runs, called directly: no Adam instance, no functional wrapper.
import torch
from torch.optim import Optimizer


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
            lr, (beta1, beta2) = group["lr"], group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                torch._fused_adamw_(
                    [p],
                    [p.grad],
                    [state["exp_avg"]],
                    [state["exp_avg_sq"]],
                    [],
                    [state["step"]],
                    lr=lr,
                    beta1=beta1,
                    beta2=beta2,
                    weight_decay=group["weight_decay"],
                    eps=group["eps"],
                    amsgrad=False,
                    maximize=False,
                )
        return loss


def build_adamw(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    return MyAdamW(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
