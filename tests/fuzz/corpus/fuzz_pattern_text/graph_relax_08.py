with PatternContext() as ctx:
    # describe a diamond pattern
    fork = is_op("nn.relu")(None)
    join = is_op("add")(None)
    fork.only_used_by(join, index=0)
    fork.only_used_by(join, index=1)
