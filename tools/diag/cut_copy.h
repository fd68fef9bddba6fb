/* tools/diag/cut_copy.h: one copy of build/diag/skinny_cut.cuh for the
 * DIAG_CUT value the includer defines, in namespace DIAG_NS, with its
 * hooks (cut_hooks.h); no guard: tools/diag/cut.cu includes it once per
 * copy, defining both names before each. */
#include "cut_hooks.h"
namespace DIAG_NS {
#include "skinny_cut.cuh"
}
#undef DIAG_CUT
#undef DIAG_NS
