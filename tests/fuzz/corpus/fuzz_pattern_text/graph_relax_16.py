with PatternContext() as ctx:
    cbr0 = (
        is_op("nn.conv2d")(None)
        >> is_op("nn.bias_add")(None)
        >> is_op("nn.relu")(None)
    )
    cbr1 = cbr0.dup()

    # input has no fork at y.

    is_var("y").fork_to(cbr0, cbr1)
