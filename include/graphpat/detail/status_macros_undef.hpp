// Undefines every macro of status_macros.hpp: the last line of each header that includes it, so
// that the macros never reach the code of graphpat's users (see status_macros.hpp).
//
//   #include "graphpat/detail/status_macros.hpp"  // after the header's other includes
//   ... code using GRAPHPAT_ASSIGN_OR_RETURN and GRAPHPAT_RETURN_IF_ERROR ...
//   #include "graphpat/detail/status_macros_undef.hpp"

#undef GRAPHPAT_STATUS_MACROS_CONCAT_INNER
#undef GRAPHPAT_STATUS_MACROS_CONCAT
#undef GRAPHPAT_ASSIGN_OR_RETURN
#undef GRAPHPAT_ASSIGN_OR_RETURN_IMPL
#undef GRAPHPAT_RETURN_IF_ERROR
