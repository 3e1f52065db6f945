with PatternContext() as ctx:
    # describe a parallel pattern
    join = is_op("add")(None)
    # Due to one-one matching:
    # is_op("nn.relu")(None) creates the 1st relu
    is_op("nn.relu")(None) >> join
    # is_op("nn.relu")(None)
    # creates the another different relu (obj address is different)
    is_op("nn.relu")(None) >> join
