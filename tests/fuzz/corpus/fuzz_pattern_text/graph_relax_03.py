with PatternContext() as ctx:
    n0 = is_op("nn.dense")(None)
    n1 = is_op("nn.softmax")(None)
    n0 >> n1
