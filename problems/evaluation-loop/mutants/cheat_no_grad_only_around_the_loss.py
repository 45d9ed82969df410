# rule: eval-mode-no-grad
# kind: cheat
# The numbers are taken without gradients, but the forward itself runs with autograd on: the
# outputs are detached straight away, so nothing seems to have been recorded.
import torch


def evaluate(model, loader, loss_fn) -> dict:
    # Remember every submodule's mode: a model may keep e.g. a frozen BatchNorm in eval mode.
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    try:
        if True:
            for inputs, targets in loader:
                outputs = model(inputs).detach()
                n = targets.shape[0]
                total_loss += loss_fn(outputs, targets).item() * n  # batch mean -> batch sum
                correct += (outputs.argmax(dim=1) == targets).sum().item()
                count += n
    finally:
        for module, training in modes:
            module.training = training
    return {"loss": total_loss / count, "accuracy": correct / count}
