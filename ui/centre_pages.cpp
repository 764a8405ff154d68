// CentrePages: the pages of the window's centre and what they show of the window's data and of
// the selected run.

#include "ui/centre_pages.h"

#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

CentrePages::CentrePages(RunManager* runs, QWidget* parent) : QStackedWidget(parent), m_runs(runs)
{
    // Images: the original, the corrupted input and each run's reconstruction.
    auto* imagesArea = new QWidget;
    auto* imagesLayout = new QVBoxLayout(imagesArea);
    imagesLayout->setContentsMargins(0, 0, 0, 0);
    auto* imageBar = new QHBoxLayout;
    m_images = new ImageStrip;
    m_images->setObjectName("imageStrip");
    auto addZoom = [&](const QString& text, const QString& tip, auto slot) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        b->setMaximumWidth(60);
        connect(b, &QPushButton::clicked, m_images, slot);
        imageBar->addWidget(b);
    };
    addZoom(tr("Fit"), tr("Fit the image to the panels"), &ImageStrip::zoomToFit);
    addZoom(tr("1:1"), tr("One image pixel per screen pixel"), &ImageStrip::zoomActualSize);
    addZoom(tr("+"), tr("Zoom in (or turn the wheel over a panel)"), &ImageStrip::zoomIn);
    addZoom(tr("−"), tr("Zoom out"), &ImageStrip::zoomOut);
    m_difference = new QCheckBox(tr("Error view |estimate − original| × 4"));
    m_difference->setObjectName("differenceToggle");
    connect(m_difference, &QCheckBox::toggled, this, [this] {
        if (m_data.dense && m_data.dense->image) {
            const ImageLayout& img = *m_data.dense->image;
            if (ImagePanel* p = m_images->find("corrupted"))
                p->setImage(m_difference->isChecked() ? differenceImage(img.corrupted, img.original)
                                                      : toGrayImage(img.corrupted));
        }
        emit differenceToggled();
    });
    imageBar->addSpacing(12);
    imageBar->addWidget(m_difference);
    imageBar->addStretch(1);
    imagesLayout->addLayout(imageBar);
    imagesLayout->addWidget(m_images, 1);

    // Tables have no images: the loadings heatmap of the selected (or latest) run stands there.
    auto* loadingsArea = new QWidget;
    auto* loadingsLayout = new QVBoxLayout(loadingsArea);
    loadingsLayout->setContentsMargins(0, 0, 0, 0);
    m_loadingsRun =
        new QLabel(tr("Loadings of the selected run (features × channels, ordered by E[π_k])."));
    m_loadings = new LoadingsView;
    m_loadings->setObjectName("loadingsView");
    // Beside the loadings, the covariance a model estimates when it has one (hidden otherwise).
    m_covariance = new CovarianceView;
    m_covariance->setObjectName("covarianceView");
    auto* loadingsSplit = new QSplitter(Qt::Horizontal);
    loadingsSplit->addWidget(m_loadings);
    loadingsSplit->addWidget(m_covariance);
    loadingsSplit->setStretchFactor(0, 1);
    loadingsSplit->setStretchFactor(1, 1);
    loadingsLayout->addWidget(m_loadingsRun);
    loadingsLayout->addWidget(loadingsSplit, 1);
    // Corpora: the topics of the selected (or latest) run.
    auto* topicsArea = new QWidget;
    auto* topicsLayout = new QVBoxLayout(topicsArea);
    topicsLayout->setContentsMargins(0, 0, 0, 0);
    m_topicsRun = new QLabel(tr("Topics of the selected run appear here once it has started."));
    m_topicsRun->setObjectName("topicsTitle");
    m_topics = new TopicsView;
    m_topics->setObjectName("topicsView");
    // Beside the table, the correlations between the topics when the fit has them (it hides
    // itself otherwise, and the table takes the width).
    m_correlations = new TopicCorrelationsView;
    m_correlations->setObjectName("topicCorrelations");
    auto* topicsSplit = new QSplitter(Qt::Horizontal);
    topicsSplit->setObjectName("topicsSplitter");
    topicsSplit->addWidget(m_topics);
    topicsSplit->addWidget(m_correlations);
    topicsSplit->setStretchFactor(0, 1);
    topicsSplit->setStretchFactor(1, 0); // the heatmap is as tall as the page allows: no wider
    topicsLayout->addWidget(m_topicsRun);
    topicsLayout->addWidget(topicsSplit, 1);
    addWidget(imagesArea);
    addWidget(loadingsArea);
    addWidget(topicsArea);
    // Ratings: any user's recommendations from the selected (or latest) run.
    m_recommendations = new RecommendationsView;
    m_recommendations->setObjectName("recommendationsView");
    addWidget(m_recommendations);
    // Labelled data: the posterior over the weights of the selected (or latest) run, or its
    // predictive slice.
    m_weightsPage = new WeightsPage;
    addWidget(m_weightsPage);
    // Graphs: the adjacency ordered by the selected (or latest) run's communities, and the
    // links it predicts.
    m_graphPage = new GraphPage;
    m_graphPage->setObjectName("graphPage");
    addWidget(m_graphPage); // the pages in DataView's order

    // Images: the dictionary of the selected run, as tiles.
    m_atomsPage = new QWidget;
    auto* atomsLayout = new QVBoxLayout(m_atomsPage);
    atomsLayout->setContentsMargins(2, 2, 2, 2);
    m_atomsRun = new QLabel(tr("Select a run to see its dictionary."));
    m_atoms = new ImagePanel(tr("Dictionary atoms"));
    m_atoms->setObjectName("atomsPanel");
    atomsLayout->addWidget(m_atomsRun);
    atomsLayout->addWidget(m_atoms, 1);
}

DataView CentrePages::showKind(const DataKindSpec& kind)
{
    const DataView view = kind.views.empty() ? DataView::Image : kind.views.front();
    setCurrentIndex(int(view));
    m_difference->setEnabled(view == DataView::Image);
    return view;
}

void CentrePages::showData(const DataKindSpec& kind, const DataSet& data)
{
    m_data = data;
    const std::vector<DataView>& views = kind.views;
    auto offers = [&](DataView v) {
        return std::find(views.begin(), views.end(), v) != views.end();
    };
    if (offers(DataView::Recommendations) && data.counts)
        m_recommendations->setData(data.counts);
    if (offers(DataView::Graph) && data.graph)
        m_graphPage->setGraph(data.graph);
    if (offers(DataView::Image) && data.dense && data.dense->image) {
        const ImageLayout& img = *data.dense->image;
        ImagePanel* original = m_images->panel("original", tr("Original"));
        original->setImage(toGrayImage(img.original));
        original->setCaption(tr("%1×%2").arg(img.width).arg(img.height));
        ImagePanel* corrupted = m_images->panel("corrupted", tr("Corrupted input"));
        corrupted->setImage(m_difference->isChecked() ? differenceImage(img.corrupted, img.original)
                                                      : toGrayImage(img.corrupted));
        corrupted->setCaption(tr("PSNR %1 dB").arg(fixed(psnr(img.original, img.corrupted), 2)));
        m_images->zoomToFit();
    }
}

void CentrePages::updateRunPanel(int id)
{
    const RunRecord* r = m_runs->record(id);
    if (!r || !r->preview || !r->preview->reconstruction || !r->data.dense || !r->data.dense->image)
        return;
    const ImageLayout& img = *r->data.dense->image;
    const Eigen::ArrayXXf& rec = *r->preview->reconstruction;
    ImagePanel* p = m_images->panel(QString("run:%1").arg(id), r->label);
    p->setImage(m_difference->isChecked() ? differenceImage(rec, img.original) : toGrayImage(rec));
    const std::int64_t step = r->trace.empty() ? 0 : r->trace.back().step;
    QString caption = tr("PSNR %1 dB").arg(fixed(psnr(img.original, rec), 2));
    if (r->preview->reconstructionFull)
        caption += tr(" (missing %1 dB) · full pass")
                       .arg(fixed(psnrMasked(img.original, rec, img.pixelObserved), 2));
    else
        caption += tr(" · running");
    caption += tr(" · step %1").arg(QLocale().toString(qlonglong(step)));
    p->setCaption(caption);
}

void CentrePages::refresh(const QList<int>& runs, const QList<int>& selected)
{
    for (int id : runs)
        updateRunPanel(id);
    bool shown = false;
    for (int id : runs)
        shown |= selected.contains(id);
    if (shown)
        showRun(selected.front());
}

void CentrePages::showRun(int id)
{
    const RunRecord* r = id ? m_runs->record(id) : nullptr;
    const DataKindSpec* kind = r ? builtinDataKinds().find(r->spec.data.kind) : nullptr;
    const std::vector<DataView> views = kind ? kind->views : std::vector<DataView>{};
    auto offers = [&](DataView v) {
        return std::find(views.begin(), views.end(), v) != views.end();
    };
    if (r && offers(DataView::Recommendations) && r->data.counts && r->preview &&
        r->preview->factors) {
        if (m_recommendations->data() != r->data.counts)
            m_recommendations->setData(r->data.counts); // another run's split: its own users
        m_recommendations->setFactors(r->preview->factors);
        const std::int64_t step = r->trace.empty() ? 0 : r->trace.back().step;
        m_recommendations->setTitle(
            tr("Recommendations of %1 %2 · step %3 (the items the user rated in "
               "training are left out; ✓ marks a held-out test rating)")
                .arg(QString("#%1").arg(r->id), QString::fromStdString(r->spec.model).toUpper() +
                                                    " " + r->label.section(' ', 1))
                .arg(QLocale().toString(qlonglong(step))));
        return;
    }
    if (r && offers(DataView::Topics)) {
        if (!r->preview || r->preview->topics.empty())
            return;
        m_topics->setTopics(r->preview->topics);
        m_correlations->setCorrelations(r->preview->topics, r->preview->correlations);
        const std::int64_t step = r->trace.empty() ? 0 : r->trace.back().step;
        m_topicsRun->setText(
            tr("Topics of %1 %2 · step %3 · %n topic(s) in use, most used first "
               "(hover a row for its word probabilities)",
               "", m_topics->topicCount())
                .arg(QString("#%1").arg(r->id), QString::fromStdString(r->spec.model).toUpper() +
                                                    " " + r->label.section(' ', 1))
                .arg(QLocale().toString(qlonglong(step))));
        return;
    }
    if (r && offers(DataView::Graph) && r->data.graph) {
        m_graphPage->setGraph(r->data.graph); // another run's split: its own held-out pairs
        if (r->preview)
            m_graphPage->showPreview(r->label, r->trace.empty() ? 0 : r->trace.back().step,
                                     *r->preview);
        return;
    }
    if (r && offers(DataView::Weights)) {
        if (r->preview)
            m_weightsPage->showPreview(r->label, r->trace.empty() ? 0 : r->trace.back().step,
                                       *r->preview);
        return;
    }
    if (r && offers(DataView::Loadings) && r->data.dense) {
        if (!r->preview || r->preview->atoms.rows() == 0)
            return;
        QStringList channels;
        for (const std::string& c : r->data.dense->columnNames)
            channels << QString::fromStdString(c);
        const Preview& pv = *r->preview;
        const QString weightName = QString::fromStdString(pv.atomWeightName);
        m_loadings->setLoadings(pv.atoms, pv.atomWeights, channels, weightName);
        m_loadings->setTitle(tr("Loadings of %1 (%2; features with %3 ≥ %4, most used first)")
                                 .arg(r->label, QString::fromStdString(pv.atomName), weightName)
                                 .arg(LoadingsView::kMinWeight));
        m_covariance->setCovariance(pv.covariance, channels);
        m_loadingsRun->setText(tr("Run %1: %2 of %3 features shown. Hover a cell for its value.")
                                   .arg(r->label)
                                   .arg(m_loadings->shownFeatures())
                                   .arg(r->preview->atoms.rows()));
        return;
    }
    showAtoms(r);
}

void CentrePages::showAtoms(const RunRecord* r)
{
    if (!r || !r->preview || r->preview->atoms.rows() == 0 || r->preview->atomWidth <= 0) {
        m_atomsRun->setText(tr("Select a run to see its dictionary."));
        return;
    }
    const Preview& pv = *r->preview;
    const int shown = int(std::min<Eigen::Index>(pv.atoms.rows(), 256));
    m_atoms->setImage(toGrayImage(tileAtoms(pv.atoms, pv.atomWidth, shown)));
    m_atoms->setTitle(tr("Dictionary of %1").arg(r->label));
    int used = 0;
    for (Eigen::Index k = 0; k < pv.atomWeights.size(); ++k)
        used += pv.atomWeights[k] > 1e-3;
    m_atoms->setCaption(tr("%1 of %2 atoms (Φ rows as %3×%3 tiles), ordered by E[π_k]: %4 … %5; %6 "
                           "with E[π_k] > 0.001")
                            .arg(shown)
                            .arg(pv.atoms.rows())
                            .arg(pv.atomWidth)
                            .arg(pv.atomWeights[0], 0, 'g', 3)
                            .arg(pv.atomWeights[shown - 1], 0, 'g', 3)
                            .arg(used));
    m_atomsRun->setText(tr("Run %1; the first tiles are the most used atoms.").arg(r->label));
}

} // namespace svi::ui
