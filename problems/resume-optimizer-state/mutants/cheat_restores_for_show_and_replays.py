# rule: restore-from-checkpoint
# kind: cheat
# Restores build(1)'s model, optimizer and scheduler from the checkpoint for show, throws them away
# and replays the run from build(0) up to the checkpoint: every load_state_dict is called.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def build(seed: int):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    return model, optimizer, scheduler


def train_step(model, optimizer, scheduler, x, y) -> float:
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    return loss.item()


def train_with_resume(x: torch.Tensor, y: torch.Tensor, total_steps: int, checkpoint_at: int) -> dict:
    model, optimizer, scheduler = build(0)
    losses = [train_step(model, optimizer, scheduler, x, y) for _ in range(checkpoint_at)]

    # deepcopy: state_dict() holds references, later training must not change the checkpoint.
    checkpoint = copy.deepcopy(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
        }
    )
    for _ in range(2):  # work done after the checkpoint, lost in the crash
        train_step(model, optimizer, scheduler, x, y)

    shown = build(1)  # restored for show, then thrown away
    shown[0].load_state_dict(checkpoint["model"])
    shown[1].load_state_dict(checkpoint["optimizer"])
    shown[2].load_state_dict(checkpoint["scheduler"])
    model, optimizer, scheduler = build(0)
    for _ in range(checkpoint_at):
        train_step(model, optimizer, scheduler, x, y)
    losses += [train_step(model, optimizer, scheduler, x, y) for _ in range(total_steps - checkpoint_at)]

    return {
        "losses": losses,
        "final_lr": optimizer.param_groups[0]["lr"],
        "params": torch.cat([p.detach().flatten() for p in model.parameters()]),
    }
