#include "core/io/run_resume.h"

#include "core/data/image_task.h"
#include "core/io/checkpoint_file.h"
#include "core/io/data_error.h"
#include "core/io/image_file.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <cmath>
#include <numeric>

namespace svi {

QJsonObject runSummaryJson(const RunDescription& run, const std::string& label,
                           const Summary& summary)
{
    QJsonObject metrics;
    double elbo = std::nan("");
    if (summary.last) {
        for (const auto& [k, v] : summary.last->metrics)
            metrics[QString::fromStdString(k)] = jsonNumber(v);
        elbo = summary.last->elbo;
    }
    // The kind and its settings in one object, as a reader of summary.json looks for them.
    QJsonObject task = paramsToJson(run.data.settings);
    task["kind"] = QString::fromStdString(run.data.kind);
    return {
        {"model", QString::fromStdString(run.model)},
        {"algorithm", QString::fromStdString(run.algorithm)},
        {"label", QString::fromStdString(label)},
        {"data", dataToJson(run.data)},
        {"task", task},
        {"seed", qint64(run.seed)},
        {"steps", qint64(summary.steps)},
        {"epochs", jsonNumber(summary.epochs)},
        {"train_seconds", jsonNumber(summary.trainSeconds)},
        {"wall_seconds", jsonNumber(summary.wallSeconds)},
        {"eval_share", jsonNumber(summary.evalShare())},
        {"seconds_per_step",
         jsonNumber(summary.steps > 0 ? summary.trainSeconds / double(summary.steps)
                                      : std::nan(""))},
        {"termination", terminationName(summary.reason)},
        {"final_evaluation", summary.finalFull ? "full" : "cheap"},
        {"message", QString::fromStdString(plainSettingRefs(summary.message))},
        {"elbo", jsonNumber(elbo)},
        {"metrics", metrics},
    };
}

namespace {

void removeStale(const QString& path)
{
    if (QFileInfo::exists(path) && !QFile::remove(path))
        failFile(path.toStdString(), "cannot remove the previous run's file");
}

} // namespace

namespace {

// user_factors.tsv / item_factors.tsv: a header (user_id or item_id, factor_1 … factor_K), then
// a line per user or item: its id in the ratings file, then its K expected factors; and
// recommendations.csv: every user's top n items not rated in training (`recommendations` when
// already listed).
void writeFactors(const QDir& dir, const CountData& data, const RatingFactors& f,
                  const std::optional<QByteArray>& recommendations)
{
    auto factorsTsv = [](const char* idColumn, const Eigen::MatrixXf& m,
                         const std::vector<std::int64_t>& ids) {
        QByteArray out = idColumn;
        for (Eigen::Index k = 0; k < m.cols(); ++k)
            out += "\tfactor_" + QByteArray::number(qint64(k) + 1);
        out += '\n';
        for (Eigen::Index r = 0; r < m.rows(); ++r) {
            out +=
                QByteArray::number(std::size_t(r) < ids.size() ? ids[std::size_t(r)] : qint64(r));
            for (Eigen::Index k = 0; k < m.cols(); ++k)
                out += '\t' + QByteArray::number(m(r, k), 'g', 7);
            out += '\n';
        }
        return out;
    };
    writeFileAtomically(dir.filePath("user_factors.tsv"),
                        factorsTsv("user_id", f.users, data.rowIds));
    writeFileAtomically(dir.filePath("item_factors.tsv"),
                        factorsTsv("item_id", f.items, data.columnIds));
    if (recommendations) {
        writeFileAtomically(dir.filePath("recommendations.csv"), *recommendations);
        return;
    }
    std::vector<std::int64_t> users(std::size_t(data.rows()));
    std::iota(users.begin(), users.end(), std::int64_t(0));
    writeFileAtomically(dir.filePath("recommendations.csv"),
                        recommendationsCsv(f, data, users, f.topN));
}

// What the model of an image task sees, and which pixels those are (255 observed, 0 removed),
// so that a peer can be given exactly the same task.
void writeTaskImages(const QDir& dir, const DataSet& data)
{
    if (!data.dense || !data.dense->image)
        return;
    const ImageLayout& layout = *data.dense->image;
    saveGrayImage(dir.filePath("observed.png").toStdString(), layout.corrupted);
    saveGrayImage(dir.filePath("mask.png").toStdString(),
                  255.0f * layout.pixelObserved.cast<float>().array());
}

} // namespace

void writePreviewFiles(const QString& folder, const DataSet& data, const Preview& preview,
                       const std::optional<QByteArray>& recommendations)
{
    const QDir dir(folder);
    if (preview.reconstruction)
        saveGrayImage(dir.filePath("reconstruction.png").toStdString(), *preview.reconstruction);
    if (preview.atomWidth > 0 && preview.atoms.rows() > 0)
        saveGrayImage(dir.filePath("atoms.png").toStdString(),
                      atomsFileImage(preview.atoms, preview.atomWidth));
    if (data.dense && !data.dense->image && preview.atoms.rows() > 0)
        writeFileAtomically(dir.filePath("loadings.csv"),
                            loadingsCsv(preview, data.dense->columnNames));
    if (!preview.topics.empty())
        writeFileAtomically(dir.filePath("topics.csv"), topicsCsv(preview.topics));
    if (preview.weights)
        writeFileAtomically(dir.filePath("weights.csv"), weightsCsv(*preview.weights));
    if (preview.slice)
        writeFileAtomically(dir.filePath("slice.csv"), sliceCsv(*preview.slice));
    if (preview.covariance && data.dense) {
        writeFileAtomically(dir.filePath("covariance_model.csv"),
                            covarianceCsv(preview.covariance->model, data.dense->columnNames));
        writeFileAtomically(dir.filePath("covariance_empirical.csv"),
                            covarianceCsv(preview.covariance->empirical, data.dense->columnNames));
    }
    if (preview.graph && data.graph) {
        writeFileAtomically(dir.filePath("communities.csv"),
                            communitiesCsv(*preview.graph, *data.graph));
        writeFileAtomically(dir.filePath("link_predictions.csv"),
                            linkPredictionsCsv(*preview.graph, *data.graph));
    }
    if (preview.factors && data.counts)
        writeFactors(dir, *data.counts, *preview.factors, recommendations);
}

void writeRunFolder(const QString& dir, const RunFolderContents& c)
{
    if (!QDir().mkpath(dir))
        throw DataError("cannot create the folder '" + dir.toStdString() + "'");
    const QDir d(dir);
    // A reader watching the folder sees run.json first and summary.json last.
    writeFileAtomically(d.filePath(kRunJsonFile),
                        QJsonDocument(runToJson(c.run)).toJson(QJsonDocument::Indented));
    if (c.data)
        writeTaskImages(d, *c.data);
    writeFileAtomically(d.filePath(kTraceFile), traceCsv(c.trace, metricKeys(c.trace)));
    const QString checkpoint = d.filePath(kCheckpointFile);
    if (c.checkpointFile.isEmpty()) {
        removeStale(checkpoint);
    } else if (QFileInfo(c.checkpointFile).canonicalFilePath() !=
               QFileInfo(checkpoint).canonicalFilePath()) {
        QFile from(c.checkpointFile);
        if (!from.open(QIODevice::ReadOnly))
            failFile(c.checkpointFile.toStdString(), from.errorString().toStdString());
        writeFileAtomically(checkpoint, from.readAll());
    }
    if (c.data && c.preview)
        writePreviewFiles(dir, *c.data, *c.preview, c.recommendations);
    const QString summary = d.filePath(kSummaryFile);
    if (!c.summary) {
        removeStale(summary);
        return;
    }
    QJsonObject json = runSummaryJson(c.run, c.label, *c.summary);
    if (c.data && *c.data) {
        json["source"] = QString::fromStdString(c.data->source());
        json["rows"] = qint64(c.data->rows());
        json["cols"] = qint64(c.data->cols());
        json["training_rows"] = qint64(c.data->trainingRowCount());
    }
    for (auto it = c.measured.begin(); it != c.measured.end(); ++it)
        json[it.key()] = it.value();
    writeFileAtomically(summary, QJsonDocument(json).toJson(QJsonDocument::Indented));
}

ResumePoint readResumePoint(const QString& dir, const CheckpointIdentity& expected,
                            Trainer& trainer)
{
    ResumePoint r;
    const QString file = QDir(dir).filePath(kCheckpointFile);
    const QString tracePath = QDir(dir).filePath(kTraceFile);
    try {
        r.progress = restoreCheckpoint(readCheckpointFile(file), expected, trainer);
    } catch (const StateError& e) {
        throw DataError("cannot resume from '" + file.toStdString() + "': " + e.what());
    }
    if (r.progress.snapshots > 0) {
        QFile trace(tracePath);
        if (!trace.open(QIODevice::ReadOnly))
            throw DataError("cannot read '" + tracePath.toStdString() +
                            "': " + trace.errorString().toStdString());
        r.trace = parseTraceCsv(trace.readAll(), tracePath.toStdString());
    }
    if (std::int64_t(r.trace.size()) < r.progress.snapshots)
        throw DataError("cannot resume: '" + tracePath.toStdString() + "' has " +
                        std::to_string(r.trace.size()) + " rows, but the checkpoint follows " +
                        std::to_string(r.progress.snapshots));
    // The rows written after the checkpoint (before the run was killed) are written again.
    r.trace.resize(std::size_t(r.progress.snapshots));
    return r;
}

} // namespace svi
