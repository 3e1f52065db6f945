with PatternContext() as ctx0:
    (
        is_op("nn.conv2d")(None)
        >> is_op("nn.bias_add")(None)
        >> is_op("nn.relu")(None)
    )
