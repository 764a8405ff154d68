// The window's session file, as File ▸ Open reads it (readSessionFile: JSON, every field
// checked against the data kinds and the registry; sessions of version 1 upgraded).

#include "tests/fuzz/fuzz_input.h"
#include "ui/session.h"

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path =
        writeInput("session.json", {reinterpret_cast<const char*>(data), size});
    ui::Session s;
    if (!expectOnly([&] { s = ui::readSessionFile(QString::fromStdString(path)); }))
        return 0;
    for (const ui::SessionRun& r : s.runs) {
        require(!r.run.runOptions().validate(), "a session's runs have valid budgets");
        require(r.run.seconds >= 0 && r.run.steps >= 0, "budgets ≥ 0");
    }
    // What it reads, it writes back, and that reads the same.
    const QJsonObject again = ui::sessionToJson(s);
    ui::Session t;
    expectOnly([&] { t = ui::sessionFromJson(again, QString::fromStdString(path)); });
    require(t.runs.size() == s.runs.size(), "a written session reads back with its runs");
    for (std::size_t i = 0; i < s.runs.size(); ++i)
        require(t.runs[i].run == s.runs[i].run, "a written session reads back the same");
    require(t.data == s.data, "a written session reads back its data");
    return 0;
}
