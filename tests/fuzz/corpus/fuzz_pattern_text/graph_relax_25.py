# match matmul1 diamond
with PatternContext() as ctx:
    sigmoid3 = is_op("sigmoid")(None)
    add4 = is_op("add")(None)
    is_op("nn.dense")(None).fork_to(sigmoid3, add4)
    add6 = is_op("add")(None)
    sigmoid3 >> add6
    add4 ^ add6
