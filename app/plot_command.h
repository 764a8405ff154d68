#pragma once
// 'svi plot' is drawn by the window's charts (Qt Widgets, Qt Charts), which the headless svi does
// not link: the command runs the program svi-plot, installed beside svi, which does.

#include <string>
#include <vector>

namespace svi::cli::detail {

// The help of 'svi plot'.
std::string plotHelp();

// svi-plot's work: parses the options of 'svi plot' and writes the figure (needs a
// QApplication). Returns the exit status; throws UsageError or DataError for bad input.
int drawPlot(const std::vector<std::string>& args);

} // namespace svi::cli::detail
