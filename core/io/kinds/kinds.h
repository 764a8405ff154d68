#pragma once
// The built-in data kinds read from files, one function each (one file each in this folder),
// and the synthetic table drawn by the models' generators. A new kind is one more file here and
// one line in core/io/data_kinds.cpp; data a model draws are registered with the model
// (Registry::addGenerator, Registry::addDataKind).

#include "core/run/data_kinds.h"
#include "core/run/registry.h"

#include <vector>

namespace svi::kinds {

// A table drawn by one of `generators` (the first is the default).
DataKindSpec synthetic(const std::vector<TableGenerator>& generators);
DataKindSpec ratings();  // MovieLens ratings: users × items
DataKindSpec corpus();   // text corpora: documents × words
DataKindSpec labelled(); // labelled features: LIBSVM text, or a table with a label column
DataKindSpec graph();    // graphs: GML, edge lists, adjacency matrices (nodes × nodes)
DataKindSpec table();    // FCS files, delimited text: rows × channels
DataKindSpec image();    // grey images, cut into overlapping patches for inpainting

} // namespace svi::kinds
