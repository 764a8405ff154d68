// MainWindow: opening data, the task, channels and models, preparing the data set.

#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

DataSource MainWindow::currentSource() const
{
    DataSource s;
    s.path = m_imagePath;
    if (m_ratings) {
        if (m_ratingsForm->isValid())
            s.ratings = RatingsOptions::fromParams(m_ratingsForm->values());
    } else if (m_corpus) {
        s.morePaths = m_morePaths;
        if (m_corpusForm->isValid())
            s.corpus = CorpusOptions::fromParams(m_corpusForm->values());
        if (isRawTextCorpus(s.path)) {
            if (m_tokenizerForm->isValid())
                s.tokenizer = TokenizerOptions::fromParams(m_tokenizerForm->values());
            s.subset = m_subset->text().trimmed();
        }
    } else if (m_table) {
        s.morePaths = m_morePaths;
        s.table = TableOptions::fromParams(m_tableForm->values());
        s.table.channels = checkedChannels();
        s.transpose = m_transpose->isChecked();
    } else {
        s.task = InpaintOptions::fromParams(m_taskForm->values());
    }
    return s;
}

const Table* MainWindow::shownTable() const
{
    return m_tableShown ? &*m_tableShown : nullptr;
}

std::vector<std::string> MainWindow::checkedChannels() const
{
    const Table* t = shownTable();
    std::vector<std::string> out;
    if (!t)
        return out;
    for (int i = 0; i < m_channels->count() && i < t->cols(); ++i)
        if (m_channels->item(i)->checkState() == Qt::Checked)
            out.push_back(t->columns[std::size_t(i)]);
    return out;
}

void MainWindow::populateChannels(const std::vector<std::string>& keep)
{
    const QSignalBlocker block(m_channels);
    m_channels->clear();
    const Table* t = shownTable();
    if (!t)
        return;
    std::string unknown;
    const auto picked = keep.empty() ? std::nullopt : selectColumns(*t, keep, &unknown);
    for (int c = 0; c < t->cols(); ++c) {
        auto* item = new QListWidgetItem(QString::fromStdString(t->label(c)), m_channels);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool on = picked ? std::find(picked->begin(), picked->end(), c) != picked->end()
                               : tickedByDefault(*t, c);
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
}

void MainWindow::showTaskFor(DataMode mode)
{
    const bool table = mode == DataMode::Table;
    m_taskBox->setVisible(mode == DataMode::Image);
    m_tableBox->setVisible(table);
    m_corpusBox->setVisible(mode == DataMode::Corpus);
    m_ratingsBox->setVisible(mode == DataMode::Ratings);
    m_textOptions->setVisible(mode == DataMode::Corpus && isRawTextCorpus(m_imagePath));
    m_centreTop->setCurrentIndex(mode == DataMode::Image    ? 0
                                 : table                    ? 1
                                 : mode == DataMode::Corpus ? 2
                                                            : 3);
    m_difference->setEnabled(mode == DataMode::Image);
    if (auto* centre = findChild<QSplitter*>("centreSplitter");
        centre && (mode == DataMode::Corpus || mode == DataMode::Ratings)) {
        const int h = centre->height(); // a list of topics needs less height than images
        if (h > 0)
            centre->setSizes({h / 2, h - h / 2});
    }
    populateModels();
    if (m_pendingSpec) {
        applySpec(*m_pendingSpec);
        m_pendingSpec.reset();
    }

    // The metrics the mode's models report; the picker keeps its choice when it still applies.
    const bool corpus = mode == DataMode::Corpus;
    const bool ratings = mode == DataMode::Ratings;
    const QString metric = m_metric->currentData().toString();
    const bool wasCorpus = m_metric->findData("perplexity") >= 0;
    const bool wasRatings = m_metric->findData("precision_at_20") >= 0;
    if (m_metric->count() == 0 || wasCorpus != corpus || wasRatings != ratings) {
        const QSignalBlocker block(m_metric);
        m_metric->clear();
        if (corpus)
            for (const MetricChoice& m : kCorpusMetrics)
                m_metric->addItem(tr(m.label), QString(m.key));
        else if (ratings)
            for (const MetricChoice& m : kRatingsMetrics)
                m_metric->addItem(tr(m.label), QString(m.key));
        else
            for (const MetricChoice& m : kMetrics)
                m_metric->addItem(tr(m.label), QString(m.key));
        const int keep = m_metric->findData(metric);
        m_metric->setCurrentIndex(std::max(keep, 0)); // perplexity first for corpora
    }
    // Figure 5 of paper 000: held-out log-likelihood against time is what tables are judged by.
    const QString now = m_metric->currentData().toString();
    if (table && now.startsWith("psnr"))
        m_metric->setCurrentIndex(m_metric->findData("heldout_loglik"));
    else if (mode == DataMode::Image && (now.startsWith("heldout") || now == "mse"))
        m_metric->setCurrentIndex(m_metric->findData("psnr_running"));
    updateChartAxes();
}

void MainWindow::populateModels()
{
    const std::string kind = m_ratings  ? "ratings"
                             : m_corpus ? "corpus"
                             : m_table  ? "table"
                                        : "image";
    const QString keep = m_model->currentData().toString();
    {
        const QSignalBlocker block(m_model);
        m_model->clear();
        for (const std::string& m : Registry::builtin().models()) {
            QString label = QString::fromStdString(m);
            bool fits = false;
            for (const AlgorithmEntry& e : Registry::builtin().entries())
                if (e.model == m) {
                    label = QString::fromStdString(e.modelLabel);
                    // Count data: recommenders for ratings, topic models for documents.
                    fits |= e.fits(kind);
                }
            if (fits)
                m_model->addItem(label, QString::fromStdString(m));
        }
        m_model->setCurrentIndex(std::max(m_model->findData(keep), 0));
    }
    onModelChanged();
}

void MainWindow::openPath(const QString& path)
{
    openPaths({path});
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    const QString path = paths.front();
    if (path.endsWith(".json", Qt::CaseInsensitive)) {
        openSession(path);
        return;
    }
    DataSource probe;
    probe.path = path;
    // Raw text is read with the tokenizer form and the subset (a re-read, a session).
    if (m_tokenizerForm->isValid())
        probe.tokenizer = TokenizerOptions::fromParams(m_tokenizerForm->values());
    probe.subset = m_subset->text().trimmed();
    probe.morePaths = paths.mid(1);
    const bool corpus = probe.isCorpus();
    const bool table = probe.isTable();
    const bool ratings = probe.isRatings();
    if (ratings && paths.size() > 1) {
        showError(tr("Cannot open %n files", "", int(paths.size())),
                  tr("Open one ratings file at a time ('%1' is extra).")
                      .arg(QFileInfo(paths[1]).fileName()));
        return;
    }
    if (!corpus && !table && !ratings && paths.size() > 1) {
        showError(tr("Cannot open %n files", "", int(paths.size())),
                  tr("Several files can be opened together only when all are FCS files; '%1' is an "
                     "image.")
                      .arg(QFileInfo(path).fileName()));
        return;
    }
    const int gen = ++m_loadGeneration;
    m_loading = true;
    updateActions();
    setBusy(tr("Loading %1…")
                .arg(paths.size() > 1 ? tr("%n files", "", int(paths.size())) : displayName(path)),
            gen);
    auto* watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcher<LoadResult>::finished, this,
            [this, watcher, gen, paths, table, corpus, ratings] {
                watcher->deleteLater();
                if (gen != m_loadGeneration)
                    return; // superseded or cancelled
                LoadResult r = watcher->result();
                if (!r.error.isEmpty()) {
                    m_pendingSpec.reset();
                    m_loading = false;
                    clearBusy(gen);
                    updateActions();
                    showError(tr("Cannot open %1")
                                  .arg(paths.size() > 1
                                           ? (corpus ? tr("the corpus") : tr("the FCS files"))
                                           : displayName(paths.front())),
                              r.error);
                    return;
                }
                m_imagePath = paths.front();
                m_morePaths = paths.mid(1);
                m_ratings.reset();
                if (ratings) {
                    m_image.reset();
                    m_table.reset();
                    m_tableShown.reset();
                    m_corpus.reset();
                    m_ratings = std::move(r.ratings);
                } else if (corpus) {
                    m_image.reset();
                    m_table.reset();
                    m_tableShown.reset();
                    m_corpus = std::move(r.corpus);
                } else if (table) {
                    m_corpus.reset();
                    m_image.reset();
                    m_table = std::move(r.table);
                    if (guessFileKind(paths.front().toStdString()) == DataFileKind::Fcs) {
                        const QSignalBlocker block(
                            m_transpose); // events are always the data points
                        m_transpose->setChecked(false);
                    }
                    m_tableShown = m_transpose->isChecked() ? transposed(*m_table) : *m_table;
                    if (!m_pendingChannels)
                        m_tableForm->setText("arcsinh", QString::number(m_table->suggestedArcsinh));
                    populateChannels(m_pendingChannels.value_or(std::vector<std::string>{}));
                    m_pendingChannels.reset();
                } else {
                    m_corpus.reset();
                    m_table.reset();
                    m_tableShown.reset();
                    m_image = r.image;
                }
                showTaskFor(ratings  ? DataMode::Ratings
                            : corpus ? DataMode::Corpus
                            : table  ? DataMode::Table
                                     : DataMode::Image);
                if (paths.size() == 1)
                    addRecent(paths.front());
                rebuildTaskData();
            });
    std::vector<std::string> files;
    for (const QString& p : paths)
        files.push_back(p.toStdString());
    watcher->setFuture(QtConcurrent::run([files, table, corpus, ratings, probe] {
        LoadResult r;
        try {
            if (ratings)
                r.ratings = std::make_shared<const Ratings>(readSourceRatings(probe));
            else if (corpus)
                r.corpus = std::make_shared<const Corpus>(readSourceCorpus(probe));
            else if (table)
                r.table = loadTable(files);
            else
                r.image = loadGrayImage(files.front());
        } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
        }
        return r;
    }));
}

void MainWindow::rebuildTaskData()
{
    m_taskDebounce->stop();
    if (m_ratings) {
        rebuildRatingsData();
        return;
    }
    if (m_corpus) {
        rebuildCorpusData();
        return;
    }
    if (m_table) {
        rebuildTableData();
        return;
    }
    if (!m_image)
        return;
    if (!m_taskForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    const DataSource source = currentSource();
    prepareData(
        source, tr("Cutting %1 into patches…").arg(displayName(source.path)),
        [image = *m_image, source] {
            return makeInpaintingData(image, source.task, source.path.toStdString());
        },
        [this, source] {
            const ImageLayout& img = *m_data.dense->image;
            m_dataLabel->setText(tr("<b>%1</b><br>%2×%3 grey · %4 patches of %5×%5")
                                     .arg(displayName(source.path).toHtmlEscaped())
                                     .arg(img.width)
                                     .arg(img.height)
                                     .arg(QLocale().toString(qlonglong(m_data.dense->rows())))
                                     .arg(img.patch));
            m_dataLabel->setToolTip(source.path);
            ImagePanel* original = m_images->panel("original", tr("Original"));
            original->setImage(toGrayImage(img.original));
            original->setCaption(tr("%1×%2").arg(img.width).arg(img.height));
            ImagePanel* corrupted = m_images->panel("corrupted", tr("Corrupted input"));
            corrupted->setImage(m_difference->isChecked()
                                    ? differenceImage(img.corrupted, img.original)
                                    : toGrayImage(img.corrupted));
            corrupted->setCaption(tr("%1 % missing, σ = %2 · PSNR %3 dB")
                                      .arg(source.task.missing * 100, 0, 'g', 3)
                                      .arg(source.task.noise)
                                      .arg(fixed(psnr(img.original, img.corrupted), 2)));
            m_images->zoomToFit();
        });
}

void MainWindow::prepareData(const DataSource& source, const QString& busyText,
                             std::function<DataSet()> make, std::function<void()> onReady)
{
    const int gen = ++m_loadGeneration;
    m_loading = true;
    updateActions();
    setBusy(busyText, gen);
    auto* watcher = new QFutureWatcher<CutResult>(this);
    connect(watcher, &QFutureWatcher<CutResult>::finished, this, [this, watcher, gen, onReady] {
        watcher->deleteLater();
        if (gen != m_loadGeneration)
            return;
        m_loading = false;
        clearBusy(gen);
        const CutResult r = watcher->result();
        if (!r.data) {
            // The settings do not fit the data (e.g. a patch larger than the image): say so
            // beside the data; the runs already made keep their own data and results.
            m_data = {};
            m_dataError->setText(r.error);
            m_dataError->setVisible(true);
            updateActions();
            emit dataReadyChanged(false);
            return;
        }
        m_dataError->setVisible(false);
        m_dataError->clear();
        m_data = r.data;
        onReady();
        updateActions();
        emit dataReadyChanged(true);
    });
    watcher->setFuture(QtConcurrent::run([make = std::move(make), name = displayName(source.path)] {
        CutResult r;
        try {
            r.data = make();
        } catch (const std::exception& e) {
            r.error = QString("%1: %2").arg(name, QString::fromStdString(e.what()));
        }
        return r;
    }));
}

void MainWindow::rebuildTableData()
{
    const Table* table = shownTable();
    const int checked = int(checkedChannels().size());
    m_channelCount->setText(
        tr("%1 of %2 channels selected").arg(checked).arg(table ? table->cols() : 0));
    if (!table || !m_tableForm->isValid() || checked == 0) {
        m_loading = false;
        m_data = {};
        if (table && checked == 0) {
            m_dataError->setText(tr("Select at least one channel."));
            m_dataError->setVisible(true);
        }
        updateActions();
        emit dataReadyChanged(false);
        return;
    }
    const DataSource source = currentSource();
    prepareData(
        source, tr("Preparing %1…").arg(displayName(source.path)),
        [table = *table, source] { return makeTableData(table, source.table); },
        [this, source] {
            const std::int64_t held =
                (m_data.dense->roles.array() == std::uint8_t(EntryRole::HeldOut)).count();
            const QString files = source.morePaths.isEmpty()
                                      ? displayName(source.path)
                                      : tr("%1 + %n more", "", int(source.morePaths.size()))
                                            .arg(displayName(source.path));
            m_dataLabel->setText(tr("<b>%1</b><br>%2 rows × %3 channels · %4 held-out entries%5")
                                     .arg(files.toHtmlEscaped())
                                     .arg(QLocale().toString(qlonglong(m_data.dense->rows())))
                                     .arg(m_data.dense->cols())
                                     .arg(QLocale().toString(qlonglong(held)))
                                     .arg(m_data.dense->trainingRows.empty()
                                              ? QString()
                                              : tr(" · %1 training rows")
                                                    .arg(QLocale().toString(qlonglong(
                                                        m_data.dense->trainingRowCount())))));
            m_dataLabel->setToolTip(source.paths().join("\n"));
        });
}

void MainWindow::rebuildCorpusData()
{
    if (!m_corpus || !m_corpusForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    const DataSource source = currentSource();
    auto tokens = std::make_shared<double>(0.0);
    prepareData(
        source, tr("Splitting %1 into training and test documents…").arg(displayName(source.path)),
        // The token count is one pass over the counts: made on the pool thread too, and
        // read only after the future has finished.
        [corpus = m_corpus, options = source.corpus, tokens]() -> DataSet {
            CountDataPtr c = makeCorpusData(*corpus, options);
            for (std::int64_t d = 0; d < c->rows(); ++d)
                *tokens +=
                    c->train.rowTotal(d) + (d < c->heldOut.rows() ? c->heldOut.rowTotal(d) : 0.0);
            return c;
        },
        [this, source, tokens] {
            const CountData& c = *m_data.counts;
            const QLocale l;
            m_dataLabel->setText(tr("<b>%1</b><br>%2 documents · %3 words in the vocabulary · %4 "
                                    "tokens · %5 test documents")
                                     .arg(displayName(source.path).toHtmlEscaped())
                                     .arg(l.toString(qlonglong(c.rows())))
                                     .arg(l.toString(qlonglong(c.cols())))
                                     .arg(l.toString(qlonglong(std::llround(*tokens))))
                                     .arg(l.toString(qlonglong(c.testRows.size()))));
            m_dataLabel->setToolTip(source.paths().join("\n"));
        });
}

void MainWindow::rebuildRatingsData()
{
    if (!m_ratings || !m_ratingsForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    const DataSource source = currentSource();
    auto stats = std::make_shared<RatingsSplitStats>();
    prepareData(
        source,
        tr("Splitting %1 into training, test and validation ratings…")
            .arg(displayName(source.path)),
        // The split's counts are written on the pool thread and read only after the
        // future has finished.
        [ratings = m_ratings, options = source.ratings, stats]() -> DataSet {
            return makeRatingsData(*ratings, options, stats.get());
        },
        [this, source, stats] {
            const QLocale l;
            m_dataLabel->setText(
                tr("<b>%1</b><br>%2 users × %3 items · %4 training, %5 test and %6 "
                   "validation ratings")
                    .arg(displayName(source.path).toHtmlEscaped())
                    .arg(l.toString(qlonglong(stats->users)))
                    .arg(l.toString(qlonglong(stats->items)))
                    .arg(l.toString(qlonglong(stats->train)))
                    .arg(l.toString(qlonglong(stats->test)))
                    .arg(l.toString(qlonglong(stats->validation))));
            m_dataLabel->setToolTip(QString::fromStdString(m_ratings->source));
            m_recommendations->setData(m_data.counts);
        });
}

void MainWindow::rereadCorpus()
{
    m_readDebounce->stop();
    if (!m_corpus)
        return;
    if (!m_tokenizerForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    openPaths(QStringList{m_imagePath} + m_morePaths);
}

// ---------------------------------------------------------------------------------------------
// Sessions

} // namespace svi::ui
