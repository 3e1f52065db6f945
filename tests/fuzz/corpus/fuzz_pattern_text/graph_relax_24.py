# counter case: mis-match matmul0 diamond
with PatternContext() as ctx:
    sigmoid2 = is_op("sigmoid")(None)
    add4 = is_op("add")(None)
    is_op("nn.dense")(None).fork_to(sigmoid2, add4)
    add5 = is_op("add")(None)
    sigmoid2 >> add5
    add4 >> add5  # not only-used-by relation
