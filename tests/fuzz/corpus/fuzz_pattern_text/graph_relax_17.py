with PatternContext() as ctx:
    is_op("nn.dense")(None) >> is_op("nn.dense")(None)
