# rule: model-untouched
# kind: cheat
# Writes every parameter through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch


def evaluate(model, loader, loss_fn) -> dict:
    # Remember every submodule's mode: a model may keep e.g. a frozen BatchNorm in eval mode.
    for p in model.parameters():
        p.data.mul_(2.0)
        p.data.mul_(0.5)
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                outputs = model(inputs)
                n = targets.shape[0]
                total_loss += loss_fn(outputs, targets).item() * n  # batch mean -> batch sum
                correct += (outputs.argmax(dim=1) == targets).sum().item()
                count += n
    finally:
        for module, training in modes:
            module.training = training
    return {"loss": total_loss / count, "accuracy": correct / count}
