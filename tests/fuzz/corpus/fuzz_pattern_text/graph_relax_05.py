with PatternContext() as ctx:
    n0 = is_op("nn.dense")(None)
    n1 = is_op("nn.relu")(None)
    n2 = is_op("sigmoid")(None)
    n3 = is_op("add")(None)

    n0 ^ n1
    n0 ^ n2
    n1 >> n3
    n2 >> n3
