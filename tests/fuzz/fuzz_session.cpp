// The window's session file, as File ▸ Open reads it (readSessionFile: JSON, every field
// checked against the registry and the tasks' rules).

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
        require(!r.spec.runOptions().validate(), "a session's runs have valid budgets");
        require(r.spec.seconds >= 0 && r.spec.steps >= 0, "budgets ≥ 0");
    }
    // What it reads, it writes back, and that reads the same.
    const QJsonObject again = ui::sessionToJson(s);
    ui::Session t;
    expectOnly([&] { t = ui::sessionFromJson(again, QString::fromStdString(path)); });
    require(t.runs.size() == s.runs.size(), "a written session reads back with its runs");
    for (std::size_t i = 0; i < s.runs.size(); ++i)
        require(t.runs[i].spec.params == s.runs[i].spec.params &&
                    t.runs[i].spec.seed == s.runs[i].spec.seed &&
                    t.runs[i].spec.steps == s.runs[i].spec.steps,
                "a written session reads back the same");
    return 0;
}
