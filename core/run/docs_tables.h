#pragma once
// The tables of models, algorithms, parameters and metrics in docs/models.md, generated from the
// registry's declarations so that the documentation cannot drift from the code
// (`svi list --markdown` prints them; a test checks docs/models.md holds exactly this text).

#include "core/run/registry.h"

#include <string>

namespace svi {

// For each model in registry order: a "###" heading (label and key), the data kinds it fits,
// a table of its algorithms (key, label, help), one table of its parameters (key, label,
// default, range, which algorithms have it, help: a parameter declared alike by several
// algorithms is listed once, "all" when every algorithm has it) and one of its metrics (key,
// label, unit, better: "higher", "lower", or "not compared" for a diagnostic; and a note, the
// metric's caveat, when one of the model's metrics declares one). A Bool's help ends with what
// false does, when declared (helpWithOffText). GitHub-flavoured
// Markdown; deterministic (registry and declaration order only). Thread-safe: reads the registry
// only.
std::string markdownTables(const Registry& registry);

// A table cell: '|' escaped everywhere; '\\', '*', '~' and '<' escaped outside `code spans`
// (inside them a backslash would show); line breaks as spaces.
std::string markdownCell(const std::string& text);

} // namespace svi
