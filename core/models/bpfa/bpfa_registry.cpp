#include "core/models/bpfa/bpfa.h"

namespace svi {

// Filled in with the algorithms as they land.
void registerBpfa(Registry&) {}

} // namespace svi
