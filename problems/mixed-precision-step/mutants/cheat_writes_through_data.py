# rule: inputs-not-modified
# kind: cheat
# Writes the caller's inputs through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch


def amp_train_step(model, optimizer, scaler, loss_fn, inputs, targets, max_norm: float) -> dict:
    inputs.data.mul_(2.0)
    inputs.data.mul_(0.5)
    optimizer.zero_grad()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        outputs = model(inputs)  # matmuls run in bfloat16
        loss = loss_fn(outputs.float(), targets)  # the loss itself in float32
    scaler.scale(loss).backward()  # backward of loss * scale: small gradients do not underflow
    scaler.unscale_(optimizer)  # real gradients from here on (and inf/NaN detected)
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scale_before = scaler.get_scale()
    scaler.step(optimizer)  # skipped if any gradient was inf/NaN
    scaler.update()  # halves the scale after an overflow, grows it after growth_interval good steps
    return {
        "loss": loss.item(),
        "grad_norm": grad_norm.item(),
        "stepped": scaler.get_scale() >= scale_before,
        "scale": scaler.get_scale(),
    }
