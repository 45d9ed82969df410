# rule: step-through-the-scaler
# kind: cheat
# Does the scaler's work by hand: steps the optimizer itself when every gradient is finite, and lets
# the scaler only update its scale.
import torch


def amp_train_step(model, optimizer, scaler, loss_fn, inputs, targets, max_norm: float) -> dict:
    optimizer.zero_grad()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        outputs = model(inputs)  # matmuls run in bfloat16
        loss = loss_fn(outputs.float(), targets)  # the loss itself in float32
    scaler.scale(loss).backward()  # backward of loss * scale: small gradients do not underflow
    scaler.unscale_(optimizer)  # real gradients from here on (and inf/NaN detected)
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scale_before = scaler.get_scale()
    finite = all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)
    if finite:
        type(optimizer).step(optimizer)
    scaler._per_optimizer_states[id(optimizer)]["stage"] = 2  # noqa: SLF001 - what scaler.step records
    scaler.update()  # halves the scale after an overflow, grows it after growth_interval good steps
    return {
        "loss": loss.item(),
        "grad_norm": grad_norm.item(),
        "stepped": scaler.get_scale() >= scale_before,
        "scale": scaler.get_scale(),
    }
