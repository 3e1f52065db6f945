# simplify it with fork_to
with PatternContext() as ctx:
    n1 = is_op("nn.relu")(None)
    n2 = is_op("sigmoid")(None)
    n3 = is_op("add")(None)

    is_op("nn.dense")(None).fork_to(n1, n2)
    n1 >> n3
    n2 >> n3
