with PatternContext() as ctx:
    fc_trans_q = is_op("nn.dense")(None) >> is_op("transpose")(None)
    fc_trans_k = fc_trans_q.dup()
    fc_trans_v = fc_trans_q.dup()

    is_var("x").fork_to(fc_trans_q, fc_trans_k, fc_trans_v)
