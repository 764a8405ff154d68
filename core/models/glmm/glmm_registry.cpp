#include "core/models/bbvi/linear_black_box.h"
#include "core/models/glmm/glmm.h"

namespace svi {

void registerGlmm(Registry& r)
{
    addLinearBbviEntry(r, "glmm", "Mixed-effects GLM (GLMM)", true, 1);
}

} // namespace svi
