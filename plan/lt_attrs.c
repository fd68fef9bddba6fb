/*
 * lt_attrs.c: the names of a cuBLASLt algorithm's stored attributes
 * (lt_attrs.h).
 */
#include "lt_attrs.h"
#include "tmpl.h"

_Static_assert(STEP_LT_VALUES == 1 + LT_NATTRS, "a STEP_LT holds the orientation and the attributes");
_Static_assert(STEP_LT_ORIENTS == LT_NORIENTS, "tmpl.h counts the orientations");

const char *const lt_attr_names[LT_NATTRS] = {
	"algo", "tile", "stages", "splitk", "reduction", "swizzle", "custom", "inner", "cluster",
};
