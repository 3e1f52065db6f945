with PatternContext() as ctx:
    inp_pat = wildcard()
    Q_weight_pat = wildcard()
    K_weight_pat = wildcard()
    V_weight_pat = wildcard()

    matmul1 = is_op("nn.dense")(inp_pat, Q_weight_pat)
    matmul2 = is_op("nn.dense")(inp_pat, K_weight_pat)
    matmul3 = is_op("nn.dense")(inp_pat, V_weight_pat)
