with PatternContext() as ctx:
    n0 = is_var("x")  # x is a free var (fn arg)
    n1 = wildcard()
    n0 ^ n1
