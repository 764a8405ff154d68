#include "core/io/run_files.h"

#include "core/io/data_error.h"
#include "core/metrics/ranking_metrics.h"

#include <QSaveFile>
#include <algorithm>
#include <cmath>
#include <limits>

namespace svi {

QJsonValue paramToJson(const ParamValue& value)
{
    if (const auto* i = std::get_if<std::int64_t>(&value))
        return QJsonValue(qint64(*i));
    if (const auto* d = std::get_if<double>(&value))
        return QJsonValue(*d);
    if (const auto* b = std::get_if<bool>(&value))
        return QJsonValue(*b);
    return QJsonValue(QString::fromStdString(std::get<std::string>(value)));
}

std::string paramTextFromJson(const QJsonValue& value)
{
    if (value.isBool())
        return value.toBool() ? "true" : "false";
    if (value.isDouble()) {
        const double d = value.toDouble();
        // Integers print without an exponent so that an Int parameter reads them back.
        if (std::abs(d) < 1e15 && d == std::floor(d))
            return std::to_string(static_cast<long long>(d));
        return formatParam(d);
    }
    if (value.isString())
        return value.toString().toStdString();
    return {};
}

QJsonValue jsonNumber(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue();
}

std::optional<std::int64_t> jsonInteger(const QJsonValue& value, std::int64_t lo, std::int64_t hi)
{
    constexpr std::int64_t kExact = std::int64_t(1) << 53;
    lo = std::max(lo, -kExact);
    hi = std::min(hi, kExact);
    if (!value.isDouble())
        return std::nullopt;
    const double v = value.toDouble();
    if (!(v >= double(lo) && v <= double(hi)) || v != std::floor(v))
        return std::nullopt;
    return std::int64_t(v);
}

std::string wholeNumberRule(std::int64_t lo, std::int64_t hi)
{
    return "must be a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

QString metricText(double value)
{
    if (!std::isfinite(value))
        return std::isnan(value) ? QString() : (value > 0 ? "inf" : "-inf");
    return QString::number(value, 'g', 10);
}

std::set<std::string> metricKeys(const std::vector<Snapshot>& trace)
{
    std::set<std::string> keys;
    for (const Snapshot& s : trace)
        for (const auto& [k, v] : s.metrics)
            keys.insert(k);
    return keys;
}

QString csvField(const QString& text)
{
    if (!text.contains(',') && !text.contains('"') && !text.contains('\n') && !text.contains('\r'))
        return text;
    QString quoted = text;
    quoted.replace('"', "\"\"");
    return '"' + quoted + '"';
}

QByteArray traceCsv(const std::vector<Snapshot>& trace, const std::set<std::string>& keys,
                    const std::vector<std::pair<QString, QString>>& lead, bool header)
{
    QByteArray out;
    QByteArray prefix;
    if (header) {
        for (const auto& [name, value] : lead)
            out += csvField(name).toUtf8() + ",";
        out += "step,epochs,train_seconds,wall_seconds,rho,elbo";
        for (const auto& k : keys)
            out += "," + csvField(QString::fromStdString(k)).toUtf8();
        out += "\n";
    }
    for (const auto& [name, value] : lead)
        prefix += csvField(value).toUtf8() + ",";
    for (const Snapshot& s : trace) {
        out += prefix + QByteArray::number(qint64(s.step)) + "," + metricText(s.epochs).toUtf8() +
               "," + metricText(s.trainSeconds).toUtf8() + "," +
               metricText(s.wallSeconds).toUtf8() + "," + metricText(s.rho).toUtf8() + "," +
               metricText(s.elbo).toUtf8();
        for (const auto& k : keys) {
            const auto it = s.metrics.find(k);
            out += "," + (it == s.metrics.end() ? QByteArray() : metricText(it->second).toUtf8());
        }
        out += "\n";
    }
    return out;
}

namespace {

// The fields of one CSV line (RFC 4180 quoting; a quoted field does not span lines here).
std::vector<QByteArray> csvFields(const QByteArray& line)
{
    std::vector<QByteArray> out(1);
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c != '"')
                out.back() += c;
            else if (i + 1 < line.size() && line[i + 1] == '"')
                out.back() += line[++i];
            else
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

} // namespace

std::vector<Snapshot> parseTraceCsv(const QByteArray& csv, const std::string& file)
{
    QList<QByteArray> lines = csv.split('\n');
    for (QByteArray& l : lines)
        if (l.endsWith('\r'))
            l.chop(1);
    while (!lines.isEmpty() && lines.back().isEmpty())
        lines.pop_back();
    if (lines.isEmpty())
        failFile(file, "the file is empty (a trace starts with the header step,epochs,…)");
    const std::vector<QByteArray> header = csvFields(lines.front());
    const auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), QByteArray(name));
        if (it == header.end())
            failLine(file, 1,
                     std::string("no column '") + name +
                         "' (a trace's header is step,epochs,train_seconds,rho,elbo,<metrics…>)");
        return std::size_t(it - header.begin());
    };
    const std::size_t step = column("step"), epochs = column("epochs"),
                      seconds = column("train_seconds"), rho = column("rho"), elbo = column("elbo");
    // A trace written before the wall clock was kept has no wall_seconds: NaN there.
    const auto wallColumn = std::find(header.begin(), header.end(), QByteArray("wall_seconds"));
    const std::size_t wall = std::size_t(wallColumn - header.begin());
    std::vector<Snapshot> trace;
    trace.reserve(std::size_t(lines.size() - 1));
    for (qsizetype n = 1; n < lines.size(); ++n) {
        if (lines[n].isEmpty())
            continue;
        const std::vector<QByteArray> cells = csvFields(lines[n]);
        if (cells.size() != header.size())
            failLine(file, n + 1,
                     std::to_string(cells.size()) + " fields, but the header has " +
                         std::to_string(header.size()));
        const auto number = [&](std::size_t c) {
            const QByteArray& t = cells[c];
            if (t.isEmpty())
                return std::numeric_limits<double>::quiet_NaN();
            if (t == "inf" || t == "-inf")
                return t.startsWith('-') ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity();
            bool ok = false;
            const double v = t.toDouble(&ok);
            if (!ok)
                failField(file, n + 1, header[c].toStdString(),
                          inQuotes(t.toStdString()) + " is not a number");
            return v;
        };
        Snapshot s;
        bool ok = false;
        s.step = cells[step].toLongLong(&ok);
        if (!ok)
            failField(file, n + 1, "step",
                      inQuotes(cells[step].toStdString()) + " is not a whole number");
        s.epochs = number(epochs);
        s.trainSeconds = number(seconds);
        s.wallSeconds =
            wall < header.size() ? number(wall) : std::numeric_limits<double>::quiet_NaN();
        s.rho = number(rho);
        s.elbo = number(elbo);
        for (std::size_t c = elbo + 1; c < header.size(); ++c)
            if (!cells[c].isEmpty())
                s.metrics[header[c].toStdString()] = number(c);
        trace.push_back(std::move(s));
    }
    if (!trace.empty())
        trace.back().final = true;
    return trace;
}

void writeFileAtomically(const QString& path, const QByteArray& bytes)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        throw DataError("cannot write '" + path.toStdString() +
                        "': " + f.errorString().toStdString());
}

QByteArray topicsCsv(const std::vector<TopicSummary>& topics)
{
    QByteArray out = "topic,weight,rank,word,probability\n";
    for (const TopicSummary& t : topics)
        for (std::size_t i = 0; i < t.words.size(); ++i)
            out += QByteArray::number(t.index + 1) + "," + metricText(t.weight).toUtf8() + "," +
                   QByteArray::number(qint64(i) + 1) + "," +
                   csvField(QString::fromStdString(t.words[i])).toUtf8() + "," +
                   metricText(i < t.probs.size() ? t.probs[i] : std::nan("")).toUtf8() + "\n";
    return out;
}

QByteArray weightsCsv(const WeightSummary& w)
{
    QByteArray out = "feature,mean,sd\n";
    for (Eigen::Index j = 0; j < w.mean.size(); ++j)
        out += csvField(std::size_t(j) < w.names.size()
                            ? QString::fromStdString(w.names[std::size_t(j)])
                            : QString("x%1").arg(j + 1))
                   .toUtf8() +
               "," + metricText(w.mean[j]).toUtf8() + "," +
               metricText(j < w.sd.size() ? w.sd[j] : std::nan("")).toUtf8() + "\n";
    return out;
}

QByteArray sliceCsv(const PredictionSlice& s)
{
    const auto at = [](const Eigen::VectorXd& v, Eigen::Index i) {
        return i < v.size() ? v[i] : std::nan("");
    };
    QByteArray out =
        csvField(s.feature.empty() ? QString("x") : QString::fromStdString(s.feature)).toUtf8() +
        ",mean,sd,lower,upper\n";
    for (Eigen::Index i = 0; i < s.x.size(); ++i) {
        const double mean = at(s.mean, i), sd = at(s.sd, i);
        out += metricText(s.x[i]).toUtf8() + "," + metricText(mean).toUtf8() + "," +
               metricText(sd).toUtf8() + "," + metricText(mean - 2.0 * sd).toUtf8() + "," +
               metricText(mean + 2.0 * sd).toUtf8() + "\n";
    }
    return out;
}

QByteArray loadingsCsv(const Preview& preview, const std::vector<std::string>& columns)
{
    QByteArray out = "feature,weight";
    for (Eigen::Index d = 0; d < preview.atoms.cols(); ++d)
        out += "," + csvField(std::size_t(d) < columns.size()
                                  ? QString::fromStdString(columns[std::size_t(d)])
                                  : QString("V%1").arg(d + 1))
                         .toUtf8();
    out += "\n";
    for (Eigen::Index k = 0; k < preview.atoms.rows(); ++k) {
        out += QByteArray::number(qint64(k) + 1) + "," +
               metricText(k < preview.atomWeights.size() ? preview.atomWeights[k] : std::nan(""))
                   .toUtf8();
        for (Eigen::Index d = 0; d < preview.atoms.cols(); ++d)
            out += "," + metricText(preview.atoms(k, d)).toUtf8();
        out += "\n";
    }
    return out;
}

namespace {

QByteArray nameField(const std::vector<std::string>& names, std::size_t i, const char* prefix)
{
    return csvField(i < names.size() ? QString::fromStdString(names[i])
                                     : QString("%1%2").arg(prefix).arg(i + 1))
        .toUtf8();
}

} // namespace

QByteArray covarianceCsv(const Eigen::MatrixXd& covariance, const std::vector<std::string>& names)
{
    QByteArray out;
    for (Eigen::Index j = 0; j < covariance.cols(); ++j)
        out += "," + nameField(names, std::size_t(j), "V");
    out += "\n";
    for (Eigen::Index i = 0; i < covariance.rows(); ++i) {
        out += nameField(names, std::size_t(i), "V");
        for (Eigen::Index j = 0; j < covariance.cols(); ++j)
            out += "," + metricText(covariance(i, j)).toUtf8();
        out += "\n";
    }
    return out;
}

QByteArray communitiesCsv(const GraphSummary& summary, const GraphData& graph)
{
    std::vector<int> degree(std::size_t(graph.nodes), 0);
    for (const NodePair& e : graph.trainEdges)
        ++degree[std::size_t(e.i)], ++degree[std::size_t(e.j)];
    QByteArray out = "rank,node,name,community,degree\n";
    for (std::size_t r = 0; r < summary.order.size(); ++r) {
        const int i = summary.order[r];
        if (i < 0 || i >= graph.nodes)
            continue;
        const int c =
            std::size_t(i) < summary.community.size() ? summary.community[std::size_t(i)] : -1;
        out += QByteArray::number(qulonglong(r) + 1) + ',' + QByteArray::number(i + 1) + ',' +
               nameField(graph.nodeNames, std::size_t(i), "node ") + ',' +
               (c >= 0 ? QByteArray::number(c + 1) : QByteArray()) + ',' +
               QByteArray::number(degree[std::size_t(i)]) + '\n';
    }
    return out;
}

QByteArray linkPredictionsCsv(const GraphSummary& summary, const GraphData& graph)
{
    QByteArray out = "i,j,name_i,name_j,linked,probability\n";
    const Eigen::MatrixXf& p = summary.linkProbability;
    for (const LabelledPair& pair : graph.heldOut) {
        const bool known = pair.i < p.rows() && pair.j < p.cols();
        out += QByteArray::number(pair.i + 1) + ',' + QByteArray::number(pair.j + 1) + ',' +
               nameField(graph.nodeNames, std::size_t(pair.i), "node ") + ',' +
               nameField(graph.nodeNames, std::size_t(pair.j), "node ") + ',' +
               (pair.linked ? "1," : "0,") +
               (known ? metricText(double(p(pair.i, pair.j))).toUtf8() : QByteArray()) + '\n';
    }
    return out;
}

QByteArray recommendationsCsv(const RatingFactors& f, const CountData& data,
                              const std::vector<std::int64_t>& users, int n)
{
    const auto idOf = [](const std::vector<std::int64_t>& ids, std::int64_t i) {
        return std::size_t(i) < ids.size() ? qint64(ids[std::size_t(i)]) : qint64(i);
    };
    QByteArray out = "user_id,rank,item_id,title,score,held_out\n";
    for (std::int64_t u : users) {
        const std::vector<std::int32_t> top = recommendations(f, data, u, n);
        const auto test = data.heldOut.rowCols(u);
        for (std::size_t r = 0; r < top.size(); ++r) {
            const std::int32_t i = top[r];
            QByteArray title = std::size_t(i) < data.columnNames.size()
                                   ? QByteArray::fromStdString(data.columnNames[std::size_t(i)])
                                   : QByteArray::number(i);
            title.replace("\"", "\"\"");
            const double score = f.offset + double(f.users.row(u).dot(f.items.row(i)));
            out += QByteArray::number(idOf(data.rowIds, u)) + ',' +
                   QByteArray::number(qulonglong(r) + 1) + ',' +
                   QByteArray::number(idOf(data.columnIds, i)) + ",\"" + title + "\"," +
                   QByteArray::number(score, 'g', 7) + ',' +
                   (std::binary_search(test.begin(), test.end(), i) ? "1" : "0") + '\n';
        }
    }
    return out;
}

} // namespace svi
