#pragma once
// The built-in data kinds, one function each (one file each in this folder). A new kind is one
// more file here and one line in core/io/data_kinds.cpp.

#include "core/run/data_kinds.h"

namespace svi::kinds {

DataKindSpec synthetic();        // data drawn from the BPFA prior (paper 000, Sec. 5.1)
DataKindSpec ratings();          // MovieLens ratings: users × items
DataKindSpec syntheticRatings(); // a matrix drawn from generalized PMF (paper 002, Sec. 4.4)
DataKindSpec corpus();           // text corpora: documents × words
DataKindSpec labelled();         // labelled features: LIBSVM text, or a table with a label column
DataKindSpec graph();            // graphs: GML, edge lists, adjacency matrices (nodes × nodes)
DataKindSpec table();            // FCS files, delimited text: rows × channels
DataKindSpec image();            // grey images, cut into overlapping patches for inpainting

} // namespace svi::kinds
