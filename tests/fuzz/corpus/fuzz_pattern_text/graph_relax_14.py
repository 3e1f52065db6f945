with PatternContext() as ctx2:
    is_op("nn.bias_add")(None) >> is_op("nn.relu")(None)
