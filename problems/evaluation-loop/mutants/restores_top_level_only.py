# rule: modes-restored
import torch


def evaluate(model, loader, loss_fn) -> dict:
    # Remember every submodule's mode: a model may keep e.g. a frozen BatchNorm in eval mode.
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
        model.train(modes[0][1])  # also flips submodules that were deliberately in the other mode
    return {"loss": total_loss / count, "accuracy": correct / count}
