#pragma once
// What the parts of the 'svi' command (cli*.cpp) share: their includes, the data prepared for
// a run, and the commands.

#include "app/run_config.h"
#include "core/data/corpus.h"
#include "core/data/image_task.h"
#include "core/data/ratings.h"
#include "core/data/table.h"
#include "core/io/corpus_files.h"
#include "core/io/data_error.h"
#include "core/io/data_files.h"
#include "core/io/fcs_file.h"
#include "core/io/image_file.h"
#include "core/io/ratings_files.h"
#include "core/io/run_files.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/bpfa/bpfa_synthetic.h"
#include "core/run/registry.h"
#include "core/run/runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QString>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <numeric>
#include <omp.h>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace svi::cli::detail {

// A run's data, task and resolved algorithm, as 'svi run' and 'svi bench' prepare them.
struct Prepared
{
    const AlgorithmEntry* entry = nullptr;
    ParamValues params;
    InpaintOptions task;            // images
    TableOptions table;             // tables and synthetic data
    DenseDataPtr data;              // images, tables, synthetic data
    CountDataPtr counts;            // corpora, ratings
    RatingsSplitStats ratingsSplit; // ratings
    std::string source;

    DataSet dataSet() const { return counts ? DataSet(counts) : DataSet(data); }
    std::int64_t rows() const { return counts ? counts->rows() : data->rows(); }
    std::int64_t cols() const { return counts ? counts->cols() : data->cols(); }
    std::int64_t trainingRows() const
    {
        return counts ? counts->trainingRowCount() : data->trainingRowCount();
    }
    bool image() const { return data && data->image; }
};

// Resolves the algorithm and its parameters against the registry. `skipUndeclared` drops --set
// keys the algorithm does not declare (bench runs several algorithms with one set of flags).
void resolveAlgorithm(const RunConfig& c, const std::string& algorithm, Prepared& p,
                      bool skipUndeclared = false);
// Reads the data of the run's task and prepares it (split, transformed) into `p`.
void loadTaskData(const RunConfig& c, Prepared& p);
void loadCorpusData(const RunConfig& c, Prepared& p);
void loadRatingsData(const RunConfig& c, Prepared& p);
std::unique_ptr<Trainer> buildTrainer(const RunConfig& c, const Prepared& p);

int cmdList(const std::vector<std::string>& args);
int cmdInfo(const std::vector<std::string>& args);
int cmdRun(const std::vector<std::string>& args);
int cmdSplit(std::vector<std::string> args);
int cmdBench(std::vector<std::string> args);

} // namespace svi::cli::detail
