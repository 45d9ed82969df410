# rule: model-untouched
# Right metrics, but every floating buffer is "renormalised" in place on the way in (a rescale by 1).
import torch


def evaluate(model, loader, loss_fn) -> dict:
    # Remember every submodule's mode: a model may keep e.g. a frozen BatchNorm in eval mode.
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    with torch.no_grad():
        for buffer in model.buffers():
            if buffer.is_floating_point():
                buffer.mul_(1.0)
                buffer.add_(0.0)
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
