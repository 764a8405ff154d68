// CentrePages: exporting what the pages show for each run, as CSV and as PNG images drawn at the
// size the pages have on screen.

#include "ui/centre_pages.h"
#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

void CentrePages::exportViews(const QString& folder) const
{
    const QDir dir(folder);
    if (m_data.dense && m_data.dense->image) {
        saveGrayImage(dir.filePath("original.png").toStdString(), m_data.dense->image->original);
        saveGrayImage(dir.filePath("corrupted.png").toStdString(), m_data.dense->image->corrupted);
    }
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
        if (!r->preview)
            continue;
        const QString stem =
            QString("run-%1-%2").arg(id).arg(QString::fromStdString(r->spec.algorithm));
        if (r->data.counts && !r->preview->topics.empty())
            writeFileAtomically(dir.filePath(stem + "-topics.csv"), topicsCsv(r->preview->topics));
        if (r->data.counts && r->preview->factors &&
            m_recommendations->user() < r->data.counts->rows())
            writeFileAtomically(dir.filePath(stem + "-recommendations.csv"),
                                recommendationsCsv(*r->preview->factors, *r->data.counts,
                                                   {m_recommendations->user()},
                                                   m_recommendations->count()));
        if (r->data.dense && !r->data.dense->image && r->preview->atoms.rows() > 0) {
            writeFileAtomically(dir.filePath(stem + "-loadings.csv"),
                                loadingsCsv(*r->preview, r->data.dense->columnNames));
            LoadingsView view;
            QStringList channels;
            for (const std::string& c : r->data.dense->columnNames)
                channels << QString::fromStdString(c);
            view.resize(m_loadings->size().expandedTo(view.sizeHint()));
            view.setLoadings(r->preview->atoms, r->preview->atomWeights, channels,
                             QString::fromStdString(r->preview->atomWeightName));
            view.setTitle(tr("Loadings of %1").arg(r->label));
            writeFileAtomically(dir.filePath(stem + "-loadings.png"), pngBytes(view.render(2.0)));
        }
        if (r->data.dense && r->preview->covariance) {
            const CovarianceSummary& c = *r->preview->covariance;
            const std::vector<std::string>& names = r->data.dense->columnNames;
            writeFileAtomically(dir.filePath(stem + "-covariance-model.csv"),
                                covarianceCsv(c.model, names));
            writeFileAtomically(dir.filePath(stem + "-covariance-empirical.csv"),
                                covarianceCsv(c.empirical, names));
            CovarianceView view;
            QStringList channels;
            for (const std::string& n : names)
                channels << QString::fromStdString(n);
            view.setCovariance(r->preview->covariance, channels);
            for (MatrixView* m : {view.empiricalView(), view.modelView()}) {
                m->resize(m->sizeHint() * 1.5);
                writeFileAtomically(dir.filePath(stem + "-" + m->objectName() + ".png"),
                                    pngBytes(m->render(2.0)));
            }
        }
        if (r->data.graph && r->preview->graph) {
            writeFileAtomically(dir.filePath(stem + "-communities.csv"),
                                communitiesCsv(*r->preview->graph, *r->data.graph));
            writeFileAtomically(dir.filePath(stem + "-link-predictions.csv"),
                                linkPredictionsCsv(*r->preview->graph, *r->data.graph));
            GraphPage page;
            page.setGraph(r->data.graph);
            if (page.showPreview(r->label, r->trace.empty() ? 0 : r->trace.back().step,
                                 *r->preview))
                for (MatrixView* m : {page.adjacencyView(), page.predictionView()}) {
                    m->resize(m->sizeHint() * 1.5);
                    writeFileAtomically(dir.filePath(stem + "-" + m->objectName() + ".png"),
                                        pngBytes(m->render(2.0)));
                }
        }
        if (r->preview->weights) {
            writeFileAtomically(dir.filePath(stem + "-weights.csv"),
                                weightsCsv(*r->preview->weights));
            WeightsView view;
            view.resize(m_weightsPage->weightsView()->size().expandedTo(view.sizeHint()));
            view.setWeights(r->preview->weights);
            view.setTitle(WeightsPage::weightsTitle(r->label));
            writeFileAtomically(dir.filePath(stem + "-weights.png"), pngBytes(view.render(2.0)));
        }
        if (r->preview->slice) {
            const PredictionSlice& slice = *r->preview->slice;
            writeFileAtomically(dir.filePath(stem + "-slice.csv"), sliceCsv(slice));
            SliceView view;
            view.resize(m_weightsPage->sliceView()->size().expandedTo(view.sizeHint()));
            view.setSlice(r->preview->slice);
            view.setTitle(WeightsPage::sliceTitle(r->label, slice));
            writeFileAtomically(dir.filePath(stem + "-slice.png"), pngBytes(view.render(2.0)));
        }
        if (r->preview->reconstruction)
            saveGrayImage(dir.filePath(stem + ".png").toStdString(), *r->preview->reconstruction);
        if (r->preview->atomWidth > 0 && r->preview->atoms.rows() > 0)
            saveGrayImage(dir.filePath(stem + "-atoms.png").toStdString(),
                          atomsFileImage(r->preview->atoms, r->preview->atomWidth));
    }
}

} // namespace svi::ui
