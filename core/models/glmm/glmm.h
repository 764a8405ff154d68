#pragma once
// The generalized linear mixed model of grouped labelled rows (clinical counts: seizures per
// visit of each patient, the epilepsy trial in epil.csv): η_i = x_iᵀw + a random effect of the
// row's group (the `groups` setting of the labelled kind), the hierarchical non-conjugate
// models of paper 004's medical experiments (Ranganath, Gerrish & Blei 2014, §5), normal
// effects with a gamma precision (Gamma-Normal) or gamma-scaled Poisson rates (Gamma-Gamma).
// Fitted by black-box VI; the model is in core/models/bbvi/linear_black_box.h.

#include "core/run/registry.h"

namespace svi {

// Registers model "glmm" with algorithm "bbvi"; labelled data with groups.
void registerGlmm(Registry& registry);

} // namespace svi
