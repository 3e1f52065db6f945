with PatternContext() as ctx1:
    is_op("nn.conv2d")(None) >> is_op("nn.relu")(None)  # pattern to miss
