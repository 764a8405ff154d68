#pragma once
// The registry of every built-in model: the composition root of the models, the one list a new
// model family is added to (builtin.cpp). Built once, immutable, safe to read from any thread.

#include "core/run/registry.h"

namespace svi {

const Registry& builtinRegistry();

} // namespace svi
