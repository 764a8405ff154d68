#pragma once
// Sample data: one small data set of each kind the workbench reads, embedded in the executables
// (resources/samples, with their provenance and licences in resources/README.md), so that a
// first run needs no download: `svi run --sample KEY`, `svi list --samples`, the window's
// File ▸ Open Sample. Declared once here; the window's menu, the flag's choices and the list
// come from this table. A sample's kind is recognised from its files' content, as any file's is.

#include <string>
#include <vector>

namespace svi {

// The image a run gets when it names no data (the window's and `svi run`'s first run, and the
// Python module's): embedded in every front end beside the samples.
inline constexpr const char* kDefaultImage = ":/images/default.png";

struct SampleData
{
    std::string key;                // "austen": what --sample takes
    std::string label;              // "Jane Austen, three novels by chapter": the menu's text
    std::string about;              // one line: what the data are and where they come from
    std::string licence;            // "public domain", "MIT", …
    std::vector<std::string> files; // resource paths (":/samples/…"), the first decides the kind
    // Copied beside the files but not read as data: the titles the ratings' reader finds beside
    // them, a licence that must travel with the data.
    std::vector<std::string> companions = {};
    std::string kind = {}; // a data kind to read them as; "" = recognised by content
};

// In the order the menu and the list show them.
const std::vector<SampleData>& sampleData();
// nullptr when absent.
const SampleData* findSample(const std::string& key);
// The keys, comma-separated, for messages.
std::string sampleKeys();

// The sample's files as ordinary files: copied (with its companions) out of the executable
// into `folder`/<key>/ the first time (kept there, so that run folders can name them), and their
// paths returned in the sample's order. `folder` empty: the user's cache folder
// (QStandardPaths::CacheLocation) /samples. Throws DataError naming the file when the executable
// does not embed it or the copy cannot be written.
std::vector<std::string> sampleFiles(const SampleData& sample, const std::string& folder = {});

} // namespace svi
