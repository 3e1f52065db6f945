# match add-4-5-6-7
with PatternContext() as ctx:
    add5 = is_op("add")(None)
    add6 = is_op("add")(None)
    add7 = is_op("add")(None)
    is_op("add")(None).fork_to(add5, add6)  # add4
    add5 >> add7
    add6 >> add7
