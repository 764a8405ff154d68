#include "core/models/bpfa/bpfa.h"
#include "core/run/registry.h"

namespace svi {

const Registry& Registry::builtin()
{
    static const Registry registry = [] {
        Registry r;
        registerBpfa(r);
        return r;
    }();
    return registry;
}

} // namespace svi
