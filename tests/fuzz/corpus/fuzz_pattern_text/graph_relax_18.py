with PatternContext() as ctx:
    is_op("nn.dense")(None).has_shape([32, 48]) >> is_op("nn.dense")(None).has_shape(
        [32, 32]
    )
