is_tuple_get_item(is_op('BatchNormalization')(None), 0)
