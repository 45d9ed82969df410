# rule: activations-freed
def checkpointed_forward(blocks, x, segment_size):
    # Right values and gradients, but every activation is kept: nothing is recomputed.
    h = x
    for block in blocks:
        h = block(h)
    return h
