# rule: modes-restored
# kind: cheat
# Restores "the" mode by calling train() again if the model was training, which looks right for a
# model whose submodules all share one mode.
import torch


def evaluate(model, loader, loss_fn):
    was_training = model.training
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                outputs = model(inputs)
                n = targets.shape[0]
                total_loss += loss_fn(outputs, targets).item() * n
                correct += (outputs.argmax(dim=1) == targets).sum().item()
                count += n
    finally:
        model.train(was_training)
    return {"loss": total_loss / count, "accuracy": correct / count}
