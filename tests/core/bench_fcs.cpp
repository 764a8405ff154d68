// FCS read speed (not a test): writes a 100,000 × 40 float32 FCS 3.1 file (big-endian, as
// CyTOF and FACSDiva write them, so every value is byte-swapped on x86) into a temporary
// folder and times readFcs over several repetitions.
// Usage: bench_fcs [events] [parameters] [repetitions]

#include "core/io/fcs_file.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

QByteArray field(qint64 v)
{
    return QByteArray::number(v).rightJustified(8, ' ');
}

QByteArray makeFile(qint64 events, int params)
{
    QByteArray text = "/$BYTEORD/4,3,2,1/$DATATYPE/F/$MODE/L/$NEXTDATA/0/$PAR/" +
                      QByteArray::number(params) + "/$TOT/" + QByteArray::number(events) + "/";
    for (int p = 1; p <= params; ++p) {
        const QByteArray n = "$P" + QByteArray::number(p);
        text += n + "N/Ch" + QByteArray::number(p) + "/" + n + "S/Marker " + QByteArray::number(p) +
                "/" + n + "B/32/" + n + "E/0,0/" + n + "R/262144/";
    }
    // Fixed-width offsets, so that the TEXT length does not depend on them.
    auto offsets = [](qint64 begin, qint64 end) {
        return "$BEGINDATA/" + QByteArray::number(begin).rightJustified(12, '0') + "/$ENDDATA/" +
               QByteArray::number(end).rightJustified(12, '0') + "/";
    };
    const qint64 textBegin = 58;
    const qint64 textEnd = textBegin + text.size() + offsets(0, 0).size() - 1;
    const qint64 dataBegin = textEnd + 1;
    const qint64 dataEnd = dataBegin + events * params * 4 - 1;
    text += offsets(dataBegin, dataEnd);
    QByteArray out = "FCS3.1    " + field(textBegin) + field(textEnd);
    out += dataEnd <= 99999999 ? field(dataBegin) + field(dataEnd) : field(0) + field(0);
    out += field(0) + field(0) + text;
    if (out.size() != dataBegin)
        std::abort();
    out.reserve(out.size() + events * params * 4);
    std::uint32_t state = 12345;
    for (qint64 i = 0; i < events * params; ++i) {
        state = state * 1664525u + 1013904223u; // any values will do
        const std::uint32_t bits = std::bit_cast<std::uint32_t>(float(state >> 8) * 0.01f);
        for (int k = 3; k >= 0; --k)
            out += char((bits >> (8 * k)) & 0xFF);
    }
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    const qint64 events = argc > 1 ? std::atoll(argv[1]) : 100000;
    const int params = argc > 2 ? std::atoi(argv[2]) : 40;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
    QTemporaryDir dir;
    const QString path = dir.filePath("bench.fcs");
    QFile f(path);
    const QByteArray bytes = makeFile(events, params);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        return 1;
    f.close();

    std::vector<double> seconds;
    for (int r = 0; r < reps; ++r) {
        QElapsedTimer t;
        t.start();
        const svi::FcsFile fcs = svi::readFcs(path.toStdString());
        seconds.push_back(t.nsecsElapsed() / 1e9);
        if (fcs.table.rows() != events || fcs.table.cols() != params)
            return 2;
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("readFcs %lld events x %d float32 parameters (%.1f MB): median %.4f s over %d "
                "repetitions (min %.4f, max %.4f)\n",
                static_cast<long long>(events), params, bytes.size() / 1e6,
                seconds[seconds.size() / 2], reps, seconds.front(), seconds.back());
    return 0;
}
