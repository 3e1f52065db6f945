// graphpat::compiled, the optional compiled component (include/graphpat/detail/linkage.hpp): the
// entry functions of every entry header, and their instantiations for the Relay dialect,
// compiled once. With GRAPHPAT_BUILDING_COMPILED the headers define them here, not inline.
#include <graphpat/graphpat.hpp>
