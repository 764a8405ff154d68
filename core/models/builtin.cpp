#include "core/models/builtin.h"

#include "core/models/bpfa/bpfa.h"
#include "core/models/ctm/ctm.h"
#include "core/models/epm/epm.h"
#include "core/models/glm/glm.h"
#include "core/models/glm/gme.h"
#include "core/models/glmm/glmm.h"
#include "core/models/gmf/gmf.h"
#include "core/models/gpfa/gpfa.h"
#include "core/models/gpmf/gpmf.h"
#include "core/models/hdp/hdp.h"
#include "core/models/lda/lda.h"
#include "core/models/pf/pf.h"
#include "core/models/sgp/sgp.h"

namespace svi {

const Registry& builtinRegistry()
{
    // Each model family registers its entries: one line per family.
    static const Registry registry = [] {
        Registry r;
        registerBpfa(r);
        registerLda(r);
        registerHdp(r);
        registerCtm(r);
        registerPoissonFactorization(r);
        registerGaussianMf(r);
        registerGeneralizedPmf(r);
        registerGlm(r);
        registerGme(r);
        registerGlmm(r);
        registerSgp(r);
        registerEpm(r);
        registerGpfa(r);
        return r;
    }();
    return registry;
}

} // namespace svi
